// LoadTimeline: what the open-model runner saw, one bucket per run second.
//
// Calls are bucketed by their *intended* send second, so a slow second is blamed on the second the
// call was due, not on when it finally completed. The timeline is written as load-timeline.csv and
// summarised per stage (stage_summary.h). A value type; not thread-safe (callers lock).
//
//   LoadTimeline timeline(clock);
//   SecondBucket& s = timeline.At(clock.SecondOf(intended));
//   s.stage = "ramp";
//   ++s.offered;
//   ++s.ok;
//   s.latency.Record(latency_ns);
//   s.ok_latency.Record(latency_ns);
//   std::size_t rows = WriteLoadTimelineCsv(timeline, std::cout);
#ifndef AFTERSHOCK_FRAMEWORK_METRICS_LOAD_TIMELINE_H_
#define AFTERSHOCK_FRAMEWORK_METRICS_LOAD_TIMELINE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "framework/common/call_code.h"
#include "framework/common/run_clock.h"
#include "framework/metrics/latency_histogram.h"

namespace aftershock::metrics {

struct SecondBucket {
  std::string stage;                 // the profile stage this second belongs to
  std::uint64_t offered = 0;         // arrivals whose intended time falls in this second (issued + shed)
  std::uint64_t ok = 0;              // issued calls that finally succeeded
  std::uint64_t ok_completed = 0;    // successes that *completed* in this second (by completion time)
  std::uint64_t failed = 0;          // issued calls that finally failed (shed not included)
  std::uint64_t shed = 0;            // arrivals refused at the in-flight ceiling, never issued
  std::uint64_t retries = 0;         // extra attempts made by the retry policy
  std::uint64_t indeterminate = 0;   // subset of `failed` whose outcome is unknown (e.g. deadline)
  std::map<CallCode, std::uint64_t> failed_by_code;  // final failures by code; shed under kCodeShed
  LatencyHistogram latency;          // every completed call, ok and failed, from its intended send time
  LatencyHistogram ok_latency;       // successful calls only
  LatencyHistogram dispatch_lag;     // actual minus intended send time, per issued call

  // Adds every count and histogram of `other`; keeps this stage name unless it is empty.
  void Merge(const SecondBucket& other);
};

class LoadTimeline {
 public:
  explicit LoadTimeline(RunClock clock = {}) : clock_(clock) {}

  // The bucket of run second `second` (>= 0; throws std::out_of_range otherwise), growing the
  // timeline with empty buckets as needed.
  SecondBucket& At(std::int64_t second);

  const std::vector<SecondBucket>& seconds() const { return seconds_; }
  const RunClock& clock() const { return clock_; }
  std::int64_t size() const { return static_cast<std::int64_t>(seconds_.size()); }

  // Second-by-second merge (e.g. of per-worker timelines on the same clock); this clock is kept.
  void Merge(const LoadTimeline& other);

 private:
  RunClock clock_;
  std::vector<SecondBucket> seconds_;
};

// Writes load-timeline.csv: a header, then one row per second from 0 to the last. Columns:
//   unix_ms,second,stage,offered,ok,ok_completed,failed,shed,retries,indeterminate,p50_ms,p90_ms,p99_ms,max_ms,
//   ok_p99_ms,lag_p50_ms,lag_p99_ms,lag_max_ms
// then failed_<CODE NAME> for every code with a nonzero count anywhere in the run, sorted by code
// value. Latencies are milliseconds with 3 decimals (0.000 when a second has none). Returns the
// number of data rows (for the END marker's rows=N).
std::size_t WriteLoadTimelineCsv(const LoadTimeline& timeline, std::ostream& out);

}  // namespace aftershock::metrics

#endif  // AFTERSHOCK_FRAMEWORK_METRICS_LOAD_TIMELINE_H_
