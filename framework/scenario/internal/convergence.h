// AwaitConvergence: the settle phase's second half. Asks the target's CheckConverged() every
// `poll` until it answers converged, the deadline passes, or a stop is requested; the result is the
// gate "target-converged" (or nothing, when the target has no convergence check).
//
//   std::optional<gates::GateResult> gate = AwaitConvergence(target, 30s, stop);
//   if (gate) outcome.gates.push_back(*gate);
#ifndef AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_CONVERGENCE_H_
#define AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_CONVERGENCE_H_

#include <chrono>
#include <functional>
#include <optional>

#include "framework/gates/gates.h"
#include "framework/scenario/scenario_target.h"

namespace aftershock::scenario::internal {

inline constexpr char kConvergedGate[] = "target-converged";

// Figures: converge_seconds (time until converged, or until given up), converge_checks.
std::optional<gates::GateResult> AwaitConvergence(ScenarioTarget& target, std::chrono::milliseconds timeout,
                                                  const std::function<bool()>& stop_requested,
                                                  std::chrono::milliseconds poll = std::chrono::milliseconds(100));

}  // namespace aftershock::scenario::internal

#endif  // AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_CONVERGENCE_H_
