// The per-scenario SLO gates: a scenario's own objectives from its manifest (`slo:`,
// framework/config/slo_spec.h) judged on its load timeline. They exist only for a scenario that
// declares objectives (RunScenario adds them after the built-in gates), one gate per objective:
//
//   slo-success-ratio   successes / (ok + failed + shed) of the judged seconds >= success_ratio.
//                       The generator's own sheds count against it: an arrival nobody answered is
//                       not a success, whatever the cause (shed-outweighs-failures says whose it was).
//   slo-latency-<pN>    the N-th percentile of every completed call's latency (ok and failed,
//                       measured from its intended send time, so a stall is not hidden by
//                       coordinated omission) <= the bound; one gate per declared percentile.
//
// Judged seconds: every second of the timeline, or those of the named stages. A declared objective
// with no completed call in its seconds is red ("nothing was measured"), never green.
//
//   std::vector<GateResult> slo = EvaluateSloGates(*config.slo, outcome.load.timeline);
//   AppendGateResults(outcome.gates, std::move(slo));
#ifndef AFTERSHOCK_FRAMEWORK_GATES_SLO_GATES_H_
#define AFTERSHOCK_FRAMEWORK_GATES_SLO_GATES_H_

#include <string>
#include <string_view>
#include <vector>

#include "framework/config/slo_spec.h"
#include "framework/gates/gate_result.h"
#include "framework/metrics/load_timeline.h"

namespace aftershock::gates {

inline constexpr std::string_view kSloSuccessRatio = "slo-success-ratio";
// "slo-latency-" + the objective's label, e.g. "slo-latency-p99" ("p99.9" -> "slo-latency-p99-9").
std::string SloLatencyGateName(const config::LatencyObjective& objective);

std::vector<GateResult> EvaluateSloGates(const config::SloSpec& slo, const metrics::LoadTimeline& timeline);

}  // namespace aftershock::gates

#endif  // AFTERSHOCK_FRAMEWORK_GATES_SLO_GATES_H_
