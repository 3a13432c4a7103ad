#include "framework/gates/slo_gates.h"

#include <algorithm>
#include <cstdint>

#include "framework/gates/internal/format_number.h"
#include "framework/metrics/latency_histogram.h"

namespace aftershock::gates {
namespace {

using internal::FormatNumber;
using internal::Percent;

struct Judged {
  std::uint64_t ok = 0;
  std::uint64_t failed = 0;
  std::uint64_t shed = 0;
  metrics::LatencyHistogram latency;
  std::string scope;  // "the run" or "stages steady, cool-down"
};

Judged Collect(const config::SloSpec& slo, const metrics::LoadTimeline& timeline) {
  Judged j;
  if (slo.stages.empty()) {
    j.scope = "the run";
  } else {
    j.scope = std::string(slo.stages.size() == 1 ? "stage " : "stages ");
    for (std::size_t i = 0; i < slo.stages.size(); ++i) j.scope += (i ? ", " : "") + slo.stages[i];
  }
  for (const metrics::SecondBucket& b : timeline.seconds()) {
    if (!slo.stages.empty() && std::find(slo.stages.begin(), slo.stages.end(), b.stage) == slo.stages.end()) continue;
    j.ok += b.ok;
    j.failed += b.failed;
    j.shed += b.shed;
    j.latency.Merge(b.latency);
  }
  return j;
}

GateResult SuccessRatio(double objective, const Judged& j) {
  GateResult r{.name = std::string(kSloSuccessRatio), .passed = false, .message = {}, .figures = {}};
  const std::uint64_t total = j.ok + j.failed + j.shed;
  r.figures = {{"slo_success_ratio_objective", objective},
               {"slo_calls", static_cast<double>(total)},
               {"slo_failed", static_cast<double>(j.failed)},
               {"slo_shed", static_cast<double>(j.shed)}};
  r.Declare(FigureDirection::kHigherIsBetter, {"slo_success_ratio"})
      .Declare(FigureDirection::kLowerIsBetter, {"slo_failed", "slo_shed"})
      .Declare(FigureDirection::kNeither, {"slo_success_ratio_objective", "slo_calls"});
  if (total == 0) {
    r.message = "nothing was measured: no call completed in " + j.scope + " (objective " + Percent(objective) + ")";
    return r;
  }
  const double ratio = static_cast<double>(j.ok) / static_cast<double>(total);
  r.figures.push_back({"slo_success_ratio", ratio});
  r.passed = ratio >= objective;
  r.message = "success " + Percent(ratio) + (r.passed ? " >= " : " < ") + Percent(objective) + " in " + j.scope +
              " (" + std::to_string(j.ok) + " of " + std::to_string(total) + " calls; " +
              std::to_string(j.failed) + " failed, " + std::to_string(j.shed) + " shed by the generator)";
  return r;
}

GateResult Latency(const config::LatencyObjective& o, const Judged& j) {
  GateResult r{.name = SloLatencyGateName(o), .passed = false, .message = {}, .figures = {}};
  std::string key = o.label;
  std::replace(key.begin(), key.end(), '.', '_');
  const double bound_ms = o.max_seconds * 1000;
  r.figures = {{"slo_" + key + "_objective_ms", bound_ms}};
  r.directions = {{"slo_" + key + "_objective_ms", FigureDirection::kNeither},
                  {"slo_" + key + "_ms", FigureDirection::kLowerIsBetter}};
  if (j.latency.empty()) {
    r.message = "nothing was measured: no call completed in " + j.scope + " (objective " + o.label + " <= " +
                FormatNumber(bound_ms) + " ms)";
    return r;
  }
  const double value_ms = static_cast<double>(j.latency.ValueAtPercentile(o.percentile)) / 1e6;
  r.figures.push_back({"slo_" + key + "_ms", value_ms});
  r.passed = value_ms <= bound_ms;
  r.message = o.label + " " + FormatNumber(value_ms) + " ms" + (r.passed ? " <= " : " > ") + FormatNumber(bound_ms) +
              " ms in " + j.scope + " (" + std::to_string(j.latency.Count()) + " calls, from the intended send)";
  return r;
}

}  // namespace

std::string SloLatencyGateName(const config::LatencyObjective& objective) {
  std::string label = objective.label;
  std::replace(label.begin(), label.end(), '.', '-');
  return "slo-latency-" + label;
}

std::vector<GateResult> EvaluateSloGates(const config::SloSpec& slo, const metrics::LoadTimeline& timeline) {
  const Judged j = Collect(slo, timeline);
  std::vector<GateResult> out;
  if (slo.success_ratio) out.push_back(SuccessRatio(*slo.success_ratio, j));
  for (const config::LatencyObjective& o : slo.latency) out.push_back(Latency(o, j));
  return out;
}

}  // namespace aftershock::gates
