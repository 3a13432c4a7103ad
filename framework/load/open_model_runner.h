// OpenModelRunner: drives a Workload on a wall-clock schedule, the open model of seed 000.
//
// Arrivals follow the rate profile and are never skipped or merged: when the dispatcher is late it
// issues at once and records the lag. It never waits for responses. An arrival that finds the
// in-flight ceiling full is shed and counted as a failure (silently issuing less work under stress
// is the closed-model blind spot by another name). Every call carries a deadline; only the policy's
// retryable codes are retried, within that deadline. Latency is measured from the intended send
// time (no coordinated omission) and results are bucketed by the intended second. Every success's
// completion time also feeds the timeline's sub-second gap figures (LoadTimeline::RecordOkCompletion).
// Retries respect the workload's Idempotency (workload.h); the constructor throws
// std::invalid_argument when the policy retries codes that may have been applied and the workload
// does not declare whether its calls are idempotent.
// A final outcome with a generator-side code (IsGeneratorSideCode) is counted apart, never as the
// service's failure, and makes the run generator-limited.
// Memory stays flat over long runs: a second that can no longer change (the dispatcher is past it
// and none of its calls is in flight, internal/final_seconds.h) has its histograms compacted
// (SecondBucket::Compact), which changes no figure; and once a pile-up of calls in flight (a stall,
// a fault) has drained, the allocator is asked to hand the pile-up's memory back
// (RunnerOptions::release_memory_after_pileup).
//
//   RunClock clock = RunClock::StartNow();
//   OpenModelRunner runner(workload, {.profile = RateProfile::Constant(200, 30),
//                                     .call_deadline = std::chrono::seconds(5), .max_in_flight = 2000}, clock);
//   RunResult result = runner.Run();   // blocks for the profile's length plus the drain
//   WriteLoadTimelineCsv(result.timeline, std::cout);
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_OPEN_MODEL_RUNNER_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_OPEN_MODEL_RUNNER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "framework/common/run_clock.h"
#include "framework/load/internal/final_seconds.h"
#include "framework/load/internal/retry_timer.h"
#include "framework/load/rate_profile.h"
#include "framework/load/workload.h"
#include "framework/metrics/generator_health.h"
#include "framework/metrics/latency_histogram.h"
#include "framework/metrics/load_timeline.h"

namespace aftershock::load {

struct RunnerOptions {
  RateProfile profile = RateProfile::Constant(1, 1);
  std::chrono::milliseconds call_deadline{5000};
  int max_in_flight = 10000;
  OutcomePolicy policy{};
  // Generator self-health: above this dispatch-lag p99, or below this achieved/offered ratio, the
  // result is flagged generator-limited (a property of the generator, not of the service).
  double max_lag_p99_ms = 10;
  double min_achieved_ratio = 0.95;
  // A call's final outcome seen later than max_completion_lag past its deadline was noticed late: the
  // generator's transport threads (or the host) could not keep up with completions, so its latency
  // is the generator's, not the service's. Above max_late_completion_ratio of the finished calls the
  // result is generator-limited.
  std::chrono::milliseconds max_completion_lag{500};
  double max_late_completion_ratio = 0.01;
  // When the dispatcher has to sleep for the next arrival, it sleeps this much longer and then
  // issues every arrival that has come due: arrivals are never skipped, merged or sent early, only
  // up to this late (each one's lag is recorded, and its latency counts from its intended time as
  // always). A window of a few hundred microseconds lets one wake-up serve several arrivals at
  // rates of thousands a second (on a VM each wake-up costs tens of microseconds of CPU across the
  // generator, the kernel and the server); 0 wakes for every arrival. The window is used only where
  // the arrival after the one slept for falls inside it (internal/coalesce_window.h): at rates
  // whose gap is longer, waiting would add lag and save no wake-up, so there it wakes on time.
  std::chrono::microseconds dispatch_coalesce{0};
  // On a virtual machine a CPU that idles longer than the hypervisor's halt-polling window (about
  // 100-200 us) goes back to the host, and a sleep of 1 ms can wake a millisecond or more late
  // (bench/sleep_lateness: 1-2 % of 1 ms sleeps on this project's VM, even at real-time priority).
  // With a slice the dispatcher waits for the next arrival in steps of at most this long
  // (internal/wake_slice.h), so its CPU never idles long enough to be taken away: a bare sleeping
  // loop's lateness p99 at 1000/s went from 1-2 ms to under 0.1 ms there (under the gRPC
  // benchmark's own load, 1000/s held its 1 ms bar in two runs of four with 100 us: docs/benchmarks.md).
  // Each step costs a wake-up (about 10 % of a core at 1000/s with 100 us), and rates whose gap is
  // under two slices take none. 0: one sleep per wait, the default.
  std::chrono::microseconds wake_slice{0};
  // For a workload polled by the dispatcher (Workload::PolledByDispatcher): its poll is asked to
  // return this long before the next arrival is due, and a precise sleep covers the rest, because a
  // poll's own timer may be coarse (gRPC's wakes on millisecond ticks, often 1-2 ms late). So a
  // completion that arrives in that last stretch is seen up to this late; shorter is more exact,
  // longer costs fewer wake-ups only where the poll's timer is already precise.
  std::chrono::microseconds poll_slack{2000};
  // Polled before every arrival and at least every 100 ms while waiting for the next one; true stops
  // dispatching early (e.g. on SIGINT, or a safety abort). Once stopped, no retry is sent either: a
  // call that would have been retried ends with its last attempt's code. Optional.
  std::function<bool()> stop_requested{};
  // How long past the last deadline to wait for stragglers before declaring a broken workload.
  std::chrono::milliseconds drain_grace{3000};
  std::uint64_t seed = 1;  // back-off jitter
  // This generator's share of the schedule: arrival n is its own when n % shard_count == shard
  // (RateProfile::Cursor). Worker processes sharing one profile and one clock start each take one
  // shard; their timelines merge into exactly one generator's (framework/metrics/timeline_file.h).
  int shard = 0;
  int shard_count = 1;
  // Compact the histograms of every second that can no longer change (see the top of this file).
  // Changes no figure; false keeps every second in its dense form, as before (the soak benchmark's
  // comparison run).
  bool compact_final_seconds = true;
  // An abseil built without NDEBUG (Debian's) records the order in which every absl::Mutex is taken
  // in one global graph, to report lock-order inversions; gRPC takes several per call, and perf put
  // that bookkeeping at 2-5 % of the generator's CPU. Run() switches it off for the whole process
  // (absl::SetMutexDeadlockDetectionMode(kIgnore)) unless this is true, and leaves it off: turning
  // it back on while mutexes are held would report orders it never saw.
  bool abseil_deadlock_detection = false;
  // Faults pile calls up (a stalled server at 5000/s with a 2 s deadline holds 10,000 in flight), and
  // glibc's malloc keeps the pages they took when they finish, so without this the generator's RSS
  // would stay at the run's highest pile-up. Once in flight has risen by at least this many calls
  // above its low and fallen back to within an eighth of the rise, the runner calls glibc's
  // malloc_trim(0) on its timer thread (not the dispatcher's), at most once a second: it returns
  // free pages only, for the whole process. A trim takes about 1 ms per MiB it returns, and
  // allocations in the arena it is trimming wait for it, so the dispatcher may be late by that much
  // once, right after a pile-up has drained. 0 never does (nothing happens either where the C
  // library is not glibc). RunResult::memory_releases counts the calls.
  int release_memory_after_pileup = 256;
};

struct RunResult {
  metrics::LoadTimeline timeline;
  metrics::GeneratorHealth health;
  bool interrupted = false;
  std::uint64_t issued = 0, ok = 0, failed = 0, shed = 0, retries = 0;
  std::uint64_t generator_failed = 0;  // generator-side final codes (IsGeneratorSideCode): not in `failed`
  // Run-clock nanoseconds (since the run start) of the last request actually sent: the last attempt
  // handed to the workload, or the workload's own later send (Workload::LastSent, for a workload
  // that queues attempts in a pool). -1 when nothing was sent.
  std::int64_t last_sent_ns = -1;
  // When the dispatcher saw stop_requested (run-clock ns); -1 when it ran to the end.
  std::int64_t stop_seen_ns = -1;
  // How often the allocator was asked to return a drained pile-up's memory
  // (RunnerOptions::release_memory_after_pileup).
  std::uint64_t memory_releases = 0;
};

// Live counters for progress lines; all fields are a consistent-enough snapshot.
struct RunnerProgress {
  double elapsed_seconds = 0, total_seconds = 0;
  std::uint64_t offered = 0, ok = 0, failed = 0, shed = 0, retries = 0;
  std::int64_t in_flight = 0;
};

struct InFlightCall;

class OpenModelRunner {
 public:
  OpenModelRunner(Workload& workload, RunnerOptions options, RunClock clock);
  ~OpenModelRunner();
  OpenModelRunner(const OpenModelRunner&) = delete;
  OpenModelRunner& operator=(const OpenModelRunner&) = delete;

  // Runs the whole profile on the calling thread, then drains. Call once.
  RunResult Run();
  RunnerProgress Progress() const;
  // The timeline's buckets of the last `seconds` run seconds up to now (by intended second, the
  // current one included), merged: live figures such as a window's reset ratio, from any thread.
  // Calls still in flight are not in it yet.
  metrics::SecondBucket Recent(int seconds) const;

 private:
  friend class AttemptDone;
  void IssueAttempt(InFlightCall* call);
  void OnAttemptDone(InFlightCall* call, CallCode code);
  void Finalize(InFlightCall* call, CallCode code, Clock::time_point now);
  void WaitForDrain(Clock::time_point last_deadline);
  // Until `until`: polls the workload's completions meanwhile when it asks for that, else sleeps.
  void WaitUntil(Clock::time_point until);
  // Waits for the in-flight count to reach zero until `limit`; true when it did.
  bool WaitForZeroInFlight(std::unique_lock<std::mutex>& lock, Clock::time_point limit);
  void NoteSent(Clock::time_point at);

  Workload& workload_;
  RunnerOptions options_;
  RunClock clock_;
  Idempotency idempotency_;
  bool polled_;  // workload_.PolledByDispatcher(), read once

  mutable std::mutex timeline_mu_;
  metrics::LoadTimeline timeline_;
  internal::FinalSeconds final_seconds_;  // under timeline_mu_: which seconds to compact
  metrics::LatencyHistogram lag_;  // dispatcher thread only

  std::atomic<std::int64_t> in_flight_{0};
  std::atomic<bool> stopping_{false};            // the dispatcher saw stop_requested: no more retries
  std::atomic<std::int64_t> last_sent_ns_{-1};   // run-clock ns of the last attempt handed to the workload
  std::atomic<std::uint64_t> offered_{0}, ok_{0}, failed_{0}, shed_{0}, retries_{0}, generator_failed_{0};
  std::atomic<std::uint64_t> late_completions_{0};   // finished more than max_completion_lag past the deadline
  std::atomic<std::int64_t> completion_lag_max_ns_{0};  // the latest finish past its deadline
  std::atomic<std::uint64_t> memory_releases_{0};       // RunResult::memory_releases
  std::mutex drain_mu_;
  std::condition_variable drained_;

  std::mutex rng_mu_;
  std::mt19937_64 rng_;
  internal::RetryTimer retry_timer_;
};

}  // namespace aftershock::load

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_OPEN_MODEL_RUNNER_H_
