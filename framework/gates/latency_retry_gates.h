// The latency and retry gates: how fast the service answered, and how much of its success the
// generator's retry policy bought. Registered in BuiltInGates() (gates.h).
//
//   latency-p99          the 99th percentile of the successful calls' latency (from the intended send,
//                        so a stall is not hidden by coordinated omission) <= max_latency_p99_seconds.
//                        Failed calls are P1's; a service that answers everything in 4 s under a 5 s
//                        deadline is red here. "not applicable" with the scenario's reason when it says
//                        latency_not_judged; red when a budget is given and nothing succeeded.
//   retry-amplification  the retry policy's extra attempts per offered call <= max_retries_per_call
//                        (default 0.05). Retries turn first-attempt failures into successes the P1
//                        gates never see; the first-attempt failure ratio is shown beside it.
//
//   GateSet set;
//   set.Add(LatencyP99Gate()).Add(RetryAmplificationGate());
#ifndef AFTERSHOCK_FRAMEWORK_GATES_LATENCY_RETRY_GATES_H_
#define AFTERSHOCK_FRAMEWORK_GATES_LATENCY_RETRY_GATES_H_

#include <memory>
#include <string_view>

#include "framework/gates/gate.h"

namespace aftershock::gates {

inline constexpr std::string_view kLatencyP99 = "latency-p99";
inline constexpr std::string_view kRetryAmplification = "retry-amplification";

std::unique_ptr<Gate> LatencyP99Gate();
std::unique_ptr<Gate> RetryAmplificationGate();

}  // namespace aftershock::gates

#endif  // AFTERSHOCK_FRAMEWORK_GATES_LATENCY_RETRY_GATES_H_
