// Availability figures of a load timeline (P1), as durations: the pure arithmetic behind the P1
// gates, also used by reports.
//
// - LongestOutage: the longest run of consecutive seconds that had offered load and in which no call
//   completed successfully (ok_completed == 0).
//   A second with no offered load ends a run (it carries no evidence either way).
// - UnavailableSeconds: failure-equivalent seconds, each second weighed against its own offered
//   load: the sum over seconds of (failed + shed) / offered. Ten seconds at 10% failures = 1 s.
// - TimeToRecover: seconds from a fault's end until the first second that starts a run of
//   `recovery_stable_seconds` seconds each with ok / offered >= recovery_success_ratio (a second
//   with no offered load does not count as recovered). nullopt when that never happens.
// - LongestSuccessGap: the longest time between two consecutive successful completions, in ms from
//   completion timestamps, counting also the start of offered load to the first success and the last
//   success to the end of offered load (a service dead at the end shows as a gap up to the end).
// - TimeToRecoverMs: the same recovery rule as TimeToRecover, searched from `origin_ms` (a fault's
//   apply or revert, run-clock ms), in milliseconds: the service recovered when the first success
//   completed among the calls intended in the first second of the stable run (never before the
//   origin; a timeline without completion times falls back to the start of that second).
//
//   Outage o = LongestOutage(timeline);          // o.first_second, o.seconds
//   double u = UnavailableSeconds(timeline);
//   std::optional<double> ttr = TimeToRecover(timeline, {"primary-kill", 40, 45}, budgets);
//   SuccessGap g = LongestSuccessGap(timeline);  // g.ms, g.start_ms
//   std::optional<double> ms = TimeToRecoverMs(timeline, 40'250.0, budgets);
#ifndef AFTERSHOCK_FRAMEWORK_GATES_AVAILABILITY_H_
#define AFTERSHOCK_FRAMEWORK_GATES_AVAILABILITY_H_

#include <cstdint>
#include <optional>
#include <string>

#include "framework/metrics/load_timeline.h"

namespace aftershock::gates {

// A fault as the chaos timeline placed it, in run seconds (begin and end inclusive), and in run-clock
// milliseconds of its apply and revert (equal for an instantaneous action; -1: unknown, then the
// start of begin_second / end_second is used).
struct FaultWindow {
  std::string name;
  std::int64_t begin_second = 0;
  std::int64_t end_second = 0;
  double apply_ms = -1;
  double revert_ms = -1;
};

struct GateBudgets {
  double max_outage_seconds = 30;        // longest outage allowed
  std::optional<double> max_gap_seconds{};  // longest gap between successes allowed; unset: max_outage_seconds
  double max_unavailable_seconds = 150;  // failure-equivalent seconds allowed over the run
  double max_recovery_seconds = 30;      // per fault, from its end
  double recovery_success_ratio = 0.99;  // a second counts as recovered at this ok / offered
  int recovery_stable_seconds = 3;       // ... and recovery needs this many such seconds in a row
  // latency-p99 and retry-amplification (latency_retry_gates.h); unset latency budget: not judged.
  std::optional<double> max_latency_p99_seconds{};
  double max_retries_per_call = 0.05;    // retries per offered call
};

struct Outage {
  std::int64_t first_second = -1;  // -1 when there was none
  std::int64_t seconds = 0;
};

struct SuccessGap {
  double ms = 0;         // its length
  double start_ms = -1;  // run-clock ms where it starts (a success, or the start of offered load); -1: none
};

Outage LongestOutage(const metrics::LoadTimeline& timeline);
SuccessGap LongestSuccessGap(const metrics::LoadTimeline& timeline);
std::optional<double> TimeToRecoverMs(const metrics::LoadTimeline& timeline, double origin_ms,
                                      const GateBudgets& budgets);
double UnavailableSeconds(const metrics::LoadTimeline& timeline);
std::optional<double> TimeToRecover(const metrics::LoadTimeline& timeline, const FaultWindow& fault,
                                    const GateBudgets& budgets);

}  // namespace aftershock::gates

#endif  // AFTERSHOCK_FRAMEWORK_GATES_AVAILABILITY_H_
