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
  // Issued calls whose first attempt did not succeed (retried, or failed at once); generator-side
  // failures not included. With retries, what the retry policy hid from the final outcome.
  std::uint64_t first_attempt_failed = 0;
  std::uint64_t indeterminate = 0;   // subset of `failed` whose outcome is unknown (e.g. deadline)
  // Calls that failed on the generator's side (e.g. timed out waiting for a free connection in the
  // generator's own pool, see IsGeneratorSideCode): not in `failed`, not the service's.
  std::uint64_t generator_failed = 0;
  // Final failures by code; shed under kCodeShed, generator-side ones under their own code.
  std::map<CallCode, std::uint64_t> failed_by_code;
  LatencyHistogram latency;          // every completed call, ok and failed, from its intended send time
  LatencyHistogram ok_latency;       // successful calls only
  LatencyHistogram dispatch_lag;     // actual minus intended send time, per issued call

  // Sub-second P1, in nanoseconds since the run start (-1 when there is none):
  // by intended second: the earliest completion among this second's successful calls;
  std::int64_t first_ok_of_intended_ns = -1;
  // by completion second: the first and last success completing in it, and the longest gap between
  // two consecutive successes completing in it (ending at longest_ok_gap_end_ns).
  std::int64_t first_ok_completed_ns = -1;
  std::int64_t last_ok_completed_ns = -1;
  std::int64_t longest_ok_gap_ns = 0;
  std::int64_t longest_ok_gap_end_ns = -1;

  // Adds every count and histogram of `other`; keeps this stage name unless it is empty. Sub-second
  // fields merge by min/max; the merged in-second gap is the larger of the two (an upper bound).
  void Merge(const SecondBucket& other);
  // Compacts the three histograms (LatencyHistogram::Compact), for a second that is final: every
  // figure stays exact, and recording into it later still works (at the cost of expanding again).
  void Compact();
};

class LoadTimeline {
 public:
  explicit LoadTimeline(RunClock clock = {}) : clock_(clock) {}

  // The bucket of run second `second` (>= 0; throws std::out_of_range otherwise), growing the
  // timeline with empty buckets as needed.
  SecondBucket& At(std::int64_t second);

  // A success completed `ns_since_start` after the run start: counts ok_completed in its completion
  // second and extends that second's first/last/longest-gap figures. Completions recorded slightly
  // out of order (threads racing for the caller's lock) fall inside the gap already measured.
  void RecordOkCompletion(std::int64_t ns_since_start);
  // An arrival was handled (issued or shed) `ns_since_start` after the run start: extends the window
  // of offered load whose edges count as gaps when no success completes near them.
  void RecordOffered(std::int64_t ns_since_start);
  // The window of offered load, ns since the run start; -1 when nothing was offered.
  std::int64_t offered_begin_ns() const { return offered_begin_ns_; }
  std::int64_t offered_end_ns() const { return offered_end_ns_; }

  const std::vector<SecondBucket>& seconds() const { return seconds_; }
  const RunClock& clock() const { return clock_; }
  std::int64_t size() const { return static_cast<std::int64_t>(seconds_.size()); }

  // Second-by-second merge (e.g. of per-worker timelines on the same clock); this clock is kept.
  void Merge(const LoadTimeline& other);

 private:
  RunClock clock_;
  std::vector<SecondBucket> seconds_;
  std::int64_t offered_begin_ns_ = -1;
  std::int64_t offered_end_ns_ = -1;
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
