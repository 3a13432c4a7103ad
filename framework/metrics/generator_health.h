// GeneratorHealth: how well the load generator held its own schedule.
//
// A result is only a property of the service if the generator issued what it promised on time;
// otherwise it is "generator-limited" and says so. The open-model runner fills this in; the
// generator-limited gate reads it.
#ifndef AFTERSHOCK_FRAMEWORK_METRICS_GENERATOR_HEALTH_H_
#define AFTERSHOCK_FRAMEWORK_METRICS_GENERATOR_HEALTH_H_

#include <cstdint>
#include <string>

namespace aftershock::metrics {

struct GeneratorHealth {
  std::uint64_t scheduled = 0;        // arrivals the profile asked for
  std::uint64_t dispatched = 0;       // arrivals handed to the transport (issued, not shed)
  std::uint64_t shed = 0;             // arrivals refused at the in-flight ceiling
  double schedule_seconds = 0;        // length of the profile
  double dispatch_seconds = 0;        // wall time from the first to the last arrival handled
  double offered_rate = 0;            // scheduled / schedule_seconds
  double achieved_rate = 0;           // (dispatched + shed) / dispatch_seconds
  double lag_p50_ms = 0;              // dispatch lag: actual minus intended send time
  double lag_p99_ms = 0;
  double lag_max_ms = 0;
  double cpu_seconds = 0;             // process CPU (user + system) spent during the load window
  // Waits in the generator's own connection pool (e.g. HttpWorkload's keep-alive pool), as the
  // workload reports them: time spent there is the generator's, not the service's.
  std::uint64_t pool_waits = 0;          // attempts that found every connection busy and waited
  double pool_wait_ms_total = 0;         // time those attempts spent waiting, summed
  double pool_wait_ms_max = 0;           // the longest single wait
  std::uint64_t pool_wait_timeouts = 0;  // attempts that reached their deadline still waiting
  std::uint64_t pool_waited_then_deadline = 0;  // attempts that waited, were sent late, then hit the deadline
  std::uint64_t generator_failed = 0;    // final outcomes with a generator-side code (not the service's)
  // Completions noticed late: a call's outcome seen well past its deadline means the generator's
  // transport threads (or the host) fell behind, and the measured latency is the generator's.
  std::uint64_t late_completions = 0;    // finished more than RunnerOptions::max_completion_lag past the deadline
  double completion_lag_max_ms = 0;      // the latest finish past its deadline
  bool generator_limited = false;     // the verdict: the figures describe the generator, not the service
  std::string reason;                 // why, when generator_limited
};

}  // namespace aftershock::metrics

#endif  // AFTERSHOCK_FRAMEWORK_METRICS_GENERATOR_HEALTH_H_
