#include "framework/config/internal/stop_conditions.h"

#include <cmath>

#include "framework/config/internal/nearest_name.h"
#include "framework/config/internal/values.h"
#include "framework/config/scalar_text.h"

namespace aftershock::config::internal {
namespace {

const std::vector<std::string>& Keys() {
  static const std::vector<std::string> keys = {"name",       "promql",     "signal",      "window_seconds",
                                                "comparator", "threshold",  "for_seconds", "breach_on_failure"};
  return keys;
}

bool IsConditionName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

bool IsSignalName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

StopConditionSpec ParseOne(const std::string& path, const YAML::Node& node, std::size_t index,
                           const std::string& what, int fallback_line) {
  const int line = LineOf(node, fallback_line);
  const std::string label = "stop condition " + std::to_string(index + 1) + " of " + what;
  const CheckedMap map(path, node, label, line, Keys());
  StopConditionSpec spec;
  spec.source = path + ":" + std::to_string(line);
  const MapEntry& name = map.Require("name");
  spec.name = ReadName(path, name);
  if (!IsConditionName(spec.name)) {
    Fail(path, name.line, "key 'name': '" + spec.name + "' is not a stop condition name (expected [a-z0-9-]+, e.g. free-disk)");
  }
  const std::string which = "stop condition '" + spec.name + "' of " + what;
  const MapEntry* promql = map.Find("promql");
  const MapEntry* signal = map.Find("signal");
  if ((promql == nullptr) == (signal == nullptr)) {
    Fail(path, line, which + ": give exactly one of 'promql' (a PromQL expression) and 'signal' (a generator "
                             "signal, docs/safety.md)" + (promql ? ", not both" : ""));
  }
  const MapEntry* window = map.Find("window_seconds");
  if (promql != nullptr) {
    spec.promql = ScalarText(path, *promql, "a PromQL expression");
    if (spec.promql.empty()) Fail(path, promql->line, which + ": key 'promql' must not be empty");
    if (window != nullptr) {
      Fail(path, window->line, which + ": key 'window_seconds' applies to a signal only (a PromQL expression "
                                       "states its own range, e.g. [30s])");
    }
  } else {
    spec.signal = ScalarText(path, *signal, "a signal name");
    if (!IsSignalName(spec.signal)) {
      Fail(path, signal->line, which + ": key 'signal': '" + spec.signal +
                                   "' is not a signal name (expected [a-z0-9_]+, e.g. transport_error_ratio)");
    }
    if (window == nullptr) {
      Fail(path, line, which + " has no key 'window_seconds' (required with a signal: how far back the signal "
                               "looks, e.g. 5s)");
    }
    spec.window_seconds = ReadValue(path, *window, ValueKind::kDuration, Bound::kPositive);
  }
  const MapEntry& comparator = map.Require("comparator");
  spec.comparator = ScalarText(path, comparator, "a comparator");
  if (spec.comparator != ">" && spec.comparator != ">=" && spec.comparator != "<" && spec.comparator != "<=") {
    Fail(path, comparator.line, which + ": key 'comparator': '" + spec.comparator +
                                    "' is not a comparator (known: >, >=, <, <=; quote it in YAML: \">\")");
  }
  const MapEntry& threshold = map.Require("threshold");
  const std::string threshold_text = ScalarText(path, threshold, "a number");
  const std::optional<double> value = ParseNumber(threshold_text);
  if (!value || !std::isfinite(*value)) {
    Fail(path, LineOf(threshold.value, threshold.line),
         which + ": key 'threshold': '" + threshold_text + "' is not a number");
  }
  spec.threshold = *value;
  spec.for_seconds = ReadValue(path, map.Require("for_seconds"), ValueKind::kDuration, Bound::kNonNegative);
  if (const MapEntry* failure = map.Find("breach_on_failure")) {
    const std::string text = ScalarText(path, *failure, "true or false");
    if (text != "true" && text != "false") {
      Fail(path, failure->line, which + ": key 'breach_on_failure': '" + text + "' is not true or false");
    }
    spec.breach_on_failure = text == "true";
  }
  return spec;
}

}  // namespace

std::vector<StopConditionSpec> ParseStopConditions(const std::string& path, const MapEntry& entry,
                                                   const std::string& what) {
  const YAML::Node& list = entry.value;
  if (!list.IsSequence()) {
    Fail(path, list.IsNull() ? entry.line : LineOf(list, entry.line),
         "key 'stop_conditions' of " + what + ": expected a list of stop conditions, found " + DescribeNode(list));
  }
  std::vector<StopConditionSpec> specs;
  for (std::size_t i = 0; i < list.size(); ++i) {
    StopConditionSpec spec = ParseOne(path, list[i], i, what, entry.line);
    for (const StopConditionSpec& earlier : specs) {
      if (earlier.name == spec.name) {
        Fail(path, LineOf(list[i], entry.line), "stop condition '" + spec.name + "' appears twice in " + what +
                                                    " (first at " + earlier.source + ")");
      }
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::vector<StopConditionSpec> MergeStopConditions(std::vector<StopConditionSpec> base,
                                                   const std::vector<StopConditionSpec>& overrides) {
  for (const StopConditionSpec& o : overrides) {
    bool replaced = false;
    for (StopConditionSpec& b : base) {
      if (b.name == o.name) {
        b = o;
        replaced = true;
      }
    }
    if (!replaced) base.push_back(o);
  }
  return base;
}

}  // namespace aftershock::config::internal
