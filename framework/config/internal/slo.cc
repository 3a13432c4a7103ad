#include "framework/config/internal/slo.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "framework/config/config_error.h"
#include "framework/config/internal/knobs.h"
#include "framework/config/internal/values.h"
#include "framework/config/scalar_text.h"

namespace aftershock::config::internal {
namespace {

// "p99" -> 99, "p99.9" -> 99.9; nullopt for anything else (p0, p101, 99, pX).
std::optional<double> PercentileOf(std::string_view key) {
  if (key.size() < 2 || key[0] != 'p') return std::nullopt;
  const std::optional<double> value = ParseNumber(key.substr(1));
  if (!value || *value <= 0 || *value > 100 || key[1] == '-' || key[1] == '+') return std::nullopt;
  return value;
}

std::vector<LatencyObjective> ParseLatency(const std::string& path, const MapEntry& entry, const std::string& which) {
  const CheckedMap map(path, entry.value, "key 'latency' of " + which, entry.line, std::nullopt);
  if (map.entries().empty()) Fail(path, entry.line, which + ": key 'latency' declares no percentile (e.g. p99: 800ms)");
  std::vector<LatencyObjective> out;
  for (const MapEntry& e : map.entries()) {
    const std::optional<double> percentile = PercentileOf(e.key);
    if (!percentile) {
      Fail(path, e.line, which + ": latency key '" + e.key +
                             "' is not a percentile (expected p<number> with 0 < number <= 100, e.g. p99, p99.9, p50)");
    }
    for (const LatencyObjective& earlier : out) {
      if (earlier.percentile == *percentile) {
        Fail(path, e.line, which + ": latency percentile '" + e.key + "' is the same as '" + earlier.label + "'");
      }
    }
    out.push_back({e.key, *percentile, ReadValue(path, e, ValueKind::kDuration, Bound::kPositive)});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.percentile < b.percentile; });
  return out;
}

std::vector<std::string> ParseStages(const std::string& path, const MapEntry& entry, const std::string& which) {
  const YAML::Node& list = entry.value;
  if (!list.IsSequence() || list.size() == 0) {
    Fail(path, entry.line, which + ": key 'stages': expected a non-empty list of profile stage names, found " +
                               (list.IsSequence() ? std::string("an empty list") : DescribeNode(list)));
  }
  std::vector<std::string> stages;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const int line = LineOf(list[i], entry.line);
    if (!list[i].IsScalar() || list[i].Scalar().empty()) {
      Fail(path, line, which + ": key 'stages': entry " + std::to_string(i + 1) + " is not a stage name");
    }
    const std::string name = list[i].Scalar();
    if (std::find(stages.begin(), stages.end(), name) != stages.end()) {
      Fail(path, line, which + ": key 'stages': stage '" + name + "' is listed twice");
    }
    stages.push_back(name);
  }
  return stages;
}

}  // namespace

SloSpec ParseSlo(const std::string& path, const MapEntry& entry, const std::string& what) {
  const std::string which = "key 'slo' of " + what;
  const CheckedMap map(path, entry.value, which, entry.line,
                       std::vector<std::string>{"success_ratio", "latency", "stages"});
  SloSpec spec;
  spec.source = path + ":" + std::to_string(entry.line);
  if (const MapEntry* ratio = map.Find("success_ratio")) {
    spec.success_ratio = ReadValue(path, *ratio, ValueKind::kNumber, Bound::kRatio);
  }
  if (const MapEntry* latency = map.Find("latency")) spec.latency = ParseLatency(path, *latency, which);
  if (const MapEntry* stages = map.Find("stages")) spec.stages = ParseStages(path, *stages, which);
  if (spec.empty()) {
    Fail(path, entry.line, which + " declares no objective (give success_ratio, latency or both)");
  }
  return spec;
}

SloSpec MergeSlo(SloSpec base, const SloSpec& override_spec) {
  if (override_spec.success_ratio) base.success_ratio = override_spec.success_ratio;
  for (const LatencyObjective& o : override_spec.latency) {
    auto same = std::find_if(base.latency.begin(), base.latency.end(),
                             [&](const LatencyObjective& b) { return b.percentile == o.percentile; });
    if (same != base.latency.end()) {
      *same = o;
    } else {
      base.latency.push_back(o);
    }
  }
  std::sort(base.latency.begin(), base.latency.end(),
            [](const auto& a, const auto& b) { return a.percentile < b.percentile; });
  if (!override_spec.stages.empty()) base.stages = override_spec.stages;
  base.source = override_spec.source;
  return base;
}

void CheckSloStages(const SloSpec& spec, const std::vector<std::string>& stage_names, const std::string& what) {
  for (const std::string& stage : spec.stages) {
    if (std::find(stage_names.begin(), stage_names.end(), stage) == stage_names.end()) {
      std::string known;
      for (const std::string& s : stage_names) known += (known.empty() ? "" : ", ") + s;
      throw ConfigError(spec.source + ": key 'slo' of " + what + ": stage '" + stage +
                        "' is not a stage of the profile (stages: " + known + ")");
    }
  }
}

}  // namespace aftershock::config::internal
