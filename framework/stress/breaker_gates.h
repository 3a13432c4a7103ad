// The circuit-breaker gates (seed 002): under a dead upstream the breaker trips, calls fail fast
// while it is open, and after the upstream recovers it closes again within its budget. Judged on
// the breaker's state as the target reports it (a gauge sampled by MetricSampler: 0 closed, 1 open,
// 2 half-open), the fault's window on the run's clock, and the load timeline.
//
//   breaker-trips       the breaker is open (or half-open) within trip_within_seconds of the
//                       upstream's death (the fault's apply). Red: it never left closed, i.e. every
//                       call still went to the dead upstream (a breaker that is not there).
//   breaker-fails-fast  p99 latency of the calls in the whole seconds from the trip (or, when it
//                       never tripped, from the trip budget) to the upstream's recovery <= budget.
//   breaker-closes      after the upstream's recovery (the fault's revert) the breaker is closed
//                       within close_within_seconds and stays closed to the end of the samples.
//                       Red: a cooldown that keeps users on the fallback long after the upstream
//                       recovered (the seed's second finding).
// A state series with no sample inside a judged range is red ("no breaker state was sampled"),
// never green; and with the sampler's coverage given, so is a run where more than
// max_failed_poll_ratio of the state gauge's polls gave no sample (judged on survivors otherwise).
//
//   BreakerObservation o{.state = sampler.Series("discovery_breaker_state"),
//                        .dead_from_ns = span.apply_ns, .dead_to_ns = span.revert_ns,
//                        .timeline = &outcome.load.timeline};
//   AppendGateResults(outcome.gates, EvaluateBreakerGates(o, BreakerBudgets{}));
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_BREAKER_GATES_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_BREAKER_GATES_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "framework/gates/gate_result.h"
#include "framework/metrics/load_timeline.h"
#include "framework/stress/metric_sampler.h"

namespace aftershock::stress {

inline constexpr std::string_view kBreakerTrips = "breaker-trips";
inline constexpr std::string_view kBreakerFailsFast = "breaker-fails-fast";
inline constexpr std::string_view kBreakerCloses = "breaker-closes";

// The state gauge's values.
inline constexpr double kBreakerClosed = 0;
inline constexpr double kBreakerOpen = 1;
inline constexpr double kBreakerHalfOpen = 2;

struct BreakerObservation {
  std::vector<MetricSample> state;  // the breaker's state over the run, oldest first
  std::int64_t dead_from_ns = -1;   // the upstream died (the fault applied), ns since the run's start
  std::int64_t dead_to_ns = -1;     // ... and recovered (the fault reverted); > dead_from_ns
  const metrics::LoadTimeline* timeline = nullptr;
  // The sampler's polls of the state gauge over the run (MetricSampler::Coverage); when given, more
  // than BreakerBudgets::max_failed_poll_ratio of them without a sample turns every breaker gate red.
  std::optional<PollCoverage> coverage{};
};

struct BreakerBudgets {
  double trip_within_seconds = 5;
  double fail_fast_p99_ms = 500;     // the seed's upstream_dead budget
  double close_within_seconds = 10;  // after the upstream recovered
  double max_failed_poll_ratio = 0.05;  // of the state gauge's polls (BreakerObservation::coverage)
};

// Throws std::invalid_argument for a window that is not dead_from_ns >= 0 < dead_to_ns, a null
// timeline or a budget <= 0.
std::vector<gates::GateResult> EvaluateBreakerGates(const BreakerObservation& observation,
                                                    const BreakerBudgets& budgets);

}  // namespace aftershock::stress

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_BREAKER_GATES_H_
