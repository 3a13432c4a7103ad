// The gates of a run's safety watch (ScenarioPlan::abort_monitor), judged after target-converged
// whenever the plan has a watch:
//   run-not-aborted      red when a stop condition (or the operator halt) stopped the run, with the
//                        condition, its reason and the measured stop latency; green when the watch
//                        ran the whole load without a breach (its notes, e.g. a condition it could
//                        not always evaluate, in the message).
//   abort-stop-latency   the 5 s contract of docs/safety.md: from the breach to the last request
//                        actually sent, at most max_stop_latency_seconds. N/A without an abort.
//
//   std::vector<gates::GateResult> g = AbortGates(outcome.abort, outcome.abort_notes, 5);
//   // "FAIL run-not-aborted: aborted at t=12.30 s by stop condition 'resets': ...; load stopped 0.040 s
//   //  after the breach (last request sent at t=12.34 s)"
#ifndef AFTERSHOCK_FRAMEWORK_SCENARIO_ABORT_GATES_H_
#define AFTERSHOCK_FRAMEWORK_SCENARIO_ABORT_GATES_H_

#include <optional>
#include <string>
#include <vector>

#include "framework/gates/gate_result.h"
#include "framework/scenario/scenario_outcome.h"

namespace aftershock::scenario {

inline constexpr const char* kRunNotAbortedGate = "run-not-aborted";
inline constexpr const char* kAbortStopLatencyGate = "abort-stop-latency";

std::vector<gates::GateResult> AbortGates(const std::optional<AbortRecord>& abort,
                                          const std::vector<std::string>& notes,
                                          double max_stop_latency_seconds);

// One line for logs and the gate: "aborted at t=12.30 s by stop condition 'resets': <reason>; load
// stopped 0.040 s after the breach (last request sent at t=12.34 s)".
std::string DescribeAbort(const AbortRecord& abort);

}  // namespace aftershock::scenario

#endif  // AFTERSHOCK_FRAMEWORK_SCENARIO_ABORT_GATES_H_
