// Generator signals: what the load generator itself sees, as named readings for stop conditions
// (`signal:` in a manifest's stop_conditions, docs/safety.md). Each looks back over a window of the
// runner's live timeline (OpenModelRunner::Recent, by intended second, the current one included):
//
//   transport_error_ratio  calls that ended in TRANSPORT_ERROR (connection reset or closed mid-reply)
//                          / calls completed in the window: the seed's "reset packet rate"
//   not_sent_ratio         calls never sent (connection refused, no route) / calls completed
//   error_ratio            the service's failures / calls completed (generator-side ones excluded)
//   shed_ratio             arrivals shed at the in-flight ceiling / arrivals offered
//   p99_latency_ms         p99 latency of the calls completed in the window, from their intended send
//   in_flight              calls in flight now (the window is not used)
// A ratio over a window with nothing completed is "nothing to judge", never 0 and never a failure.
//
//   std::optional<SignalSource> resets = RunnerSignal(runner, "transport_error_ratio");
//   Reading r = (*resets)(std::chrono::seconds(5));
#ifndef AFTERSHOCK_FRAMEWORK_SAFETY_RUNNER_SIGNALS_H_
#define AFTERSHOCK_FRAMEWORK_SAFETY_RUNNER_SIGNALS_H_

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "framework/load/open_model_runner.h"
#include "framework/safety/stop_condition.h"

namespace aftershock::safety {

// A named reading over a window of the run (a generator signal, or a suite's own).
using SignalSource = std::function<Reading(std::chrono::milliseconds window)>;

// The names above, in that order.
const std::vector<std::string>& RunnerSignalNames();
// The signal of that name over `runner` (which must outlive it); nullopt for an unknown name.
std::optional<SignalSource> RunnerSignal(const load::OpenModelRunner& runner, std::string_view name);

}  // namespace aftershock::safety

#endif  // AFTERSHOCK_FRAMEWORK_SAFETY_RUNNER_SIGNALS_H_
