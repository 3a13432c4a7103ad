#include "framework/load/open_model_runner.h"

#include <sys/prctl.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "framework/load/internal/coalesce_window.h"
#include "framework/load/internal/pileup_release.h"
#include "framework/load/internal/wake_slice.h"

namespace aftershock::load {

struct InFlightCall {
  std::uint64_t sequence = 0;
  int attempt = 0;
  std::int64_t second = 0;
  Clock::time_point intended;
  Clock::time_point deadline;
  std::chrono::system_clock::time_point wall_deadline;
  std::unique_ptr<CallState> state;
};

void AttemptDone::operator()(CallCode code) const { runner_->OnAttemptDone(call_, code); }

namespace {

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

double Ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

// FinalSeconds' callback: compacts a second that can no longer change (the caller holds the lock),
// unless compaction is off.
auto CompactSecondOf(metrics::LoadTimeline& timeline, bool compact) {
  return [&timeline, compact](std::int64_t second) {
    if (compact) timeline.At(second).Compact();
  };
}

}  // namespace

OpenModelRunner::OpenModelRunner(Workload& workload, RunnerOptions options, RunClock clock)
    : workload_(workload),
      options_(std::move(options)),
      clock_(clock),
      idempotency_(workload.CallIdempotency()),
      polled_(workload.PolledByDispatcher()),
      timeline_(clock),
      rng_(options_.seed) {
  if (options_.shard_count < 1 || options_.shard < 0 || options_.shard >= options_.shard_count) {
    throw std::invalid_argument("OpenModelRunner: shard " + std::to_string(options_.shard) + " of " +
                                std::to_string(options_.shard_count) + " is not a shard (0 <= shard < shard_count)");
  }
  if (std::string problem = RetryDeclarationProblem(options_.policy, idempotency_); !problem.empty()) {
    throw std::invalid_argument("OpenModelRunner: " + problem);
  }
}

OpenModelRunner::~OpenModelRunner() { retry_timer_.Stop(); }

RunnerProgress OpenModelRunner::Progress() const {
  RunnerProgress p;
  p.elapsed_seconds = std::chrono::duration<double>(Clock::now() - clock_.start()).count();
  p.total_seconds = options_.profile.TotalSeconds();
  p.offered = offered_.load(std::memory_order_relaxed);
  p.ok = ok_.load(std::memory_order_relaxed);
  p.failed = failed_.load(std::memory_order_relaxed);
  p.shed = shed_.load(std::memory_order_relaxed);
  p.retries = retries_.load(std::memory_order_relaxed);
  p.in_flight = in_flight_.load(std::memory_order_relaxed);
  return p;
}

RunResult OpenModelRunner::Run() {
  // A 1 us timer slack keeps sleep_until close to the schedule (the default is 50 us).
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  if (!options_.abseil_deadlock_detection) absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  const double cpu_before = CpuSeconds();
  const auto& stages = options_.profile.stages();
  RunResult result;
  RateProfile::Cursor cursor = options_.profile.Begin(options_.shard, options_.shard_count);
  // One arrival of lookahead: the coalescing window applies only when the next one falls inside it.
  Arrival arrival, next;
  bool have_next = cursor.Next(next);
  std::uint64_t scheduled = 0, handled = 0;
  Clock::time_point last_dispatch = clock_.start();
  Clock::time_point last_deadline = clock_.start();
  const auto start = clock_.start();
  constexpr auto kPollSlice = std::chrono::milliseconds(100);
  internal::PileupRelease pileup_release(options_.release_memory_after_pileup, std::chrono::seconds(1));

  const auto stop_now = [&] {
    if (!options_.stop_requested || !options_.stop_requested()) return false;
    stopping_.store(true, std::memory_order_release);
    result.stop_seen_ns = clock_.Since(Clock::now()).count();
    return true;
  };
  while (have_next) {
    arrival = next;
    have_next = cursor.Next(next);
    ++scheduled;
    if (stop_now()) {
      result.interrupted = true;
      break;
    }
    const Clock::time_point target = start + arrival.offset;
    const auto window = internal::CoalesceWindow(options_.dispatch_coalesce, arrival.offset,
                                                 have_next ? std::optional(next.offset) : std::nullopt);
    Clock::time_point now = Clock::now();
    // Long gaps are waited in slices so an interrupt is seen within ~100 ms.
    if (polled_ && now >= target) workload_.PollCompletionsUntil(now);  // due already: what is ready
    while (now < target) {
      if (target - now > kPollSlice) {
        WaitUntil(now + kPollSlice);
        if (stop_now()) break;
      } else {
        WaitUntil(internal::SlicedWake(now, target + window, options_.wake_slice));
      }
      now = Clock::now();
    }
    if (now < target) {  // stopped while sleeping
      result.interrupted = true;
      break;
    }
    const auto lag = std::chrono::duration_cast<std::chrono::nanoseconds>(now - target);
    lag_.Record(lag.count());
    const std::int64_t second = arrival.offset.count() / 1'000'000'000;
    const std::string& stage = stages[arrival.stage].name;
    ++handled;
    last_dispatch = now;
    offered_.fetch_add(1, std::memory_order_relaxed);

    if (in_flight_.load(std::memory_order_relaxed) >= options_.max_in_flight) {
      shed_.fetch_add(1, std::memory_order_relaxed);
      std::lock_guard<std::mutex> lock(timeline_mu_);
      timeline_.RecordOffered(std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count());
      final_seconds_.ArrivalHandled(second, CompactSecondOf(timeline_, options_.compact_final_seconds));
      metrics::SecondBucket& b = timeline_.At(second);
      if (b.stage.empty()) b.stage = stage;
      ++b.offered;
      ++b.shed;
      ++b.failed_by_code[kCodeShed];
      b.dispatch_lag.Record(lag.count());
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(timeline_mu_);
      timeline_.RecordOffered(std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count());
      final_seconds_.ArrivalHandled(second, CompactSecondOf(timeline_, options_.compact_final_seconds));
      final_seconds_.CallIssued(second);
      metrics::SecondBucket& b = timeline_.At(second);
      if (b.stage.empty()) b.stage = stage;
      ++b.offered;
      b.dispatch_lag.Record(lag.count());
    }
    const std::int64_t in_flight = in_flight_.fetch_add(1, std::memory_order_relaxed) + 1;
    if (pileup_release.Observe(in_flight, now)) {
      // On the timer thread, so this thread does not walk the arenas itself; it still waits for its
      // own arena while the trim holds that arena's lock (about 1 ms per MiB returned).
      retry_timer_.Schedule(now, [this] {
        if (internal::ReleaseFreeMemory()) memory_releases_.fetch_add(1, std::memory_order_relaxed);
      });
    }
    auto* call = new InFlightCall;
    call->sequence = arrival.sequence;
    call->second = second;
    call->intended = target;
    // A real caller sets its deadline when it sends, so the deadline counts from the actual send.
    call->deadline = now + options_.call_deadline;
    call->wall_deadline = std::chrono::system_clock::now() + options_.call_deadline;
    call->state = workload_.NewCall(arrival.sequence);
    last_deadline = call->deadline;
    IssueAttempt(call);
  }

  {
    std::lock_guard<std::mutex> lock(timeline_mu_);
    final_seconds_.DispatchEnded(CompactSecondOf(timeline_, options_.compact_final_seconds));
  }
  WaitForDrain(last_deadline);
  retry_timer_.Stop();
  const double cpu_after = CpuSeconds();

  {
    std::lock_guard<std::mutex> lock(timeline_mu_);  // drained: every second is final and compact
    result.timeline = timeline_;
  }
  result.issued = handled - shed_.load();
  result.ok = ok_.load();
  result.failed = failed_.load();
  result.shed = shed_.load();
  result.retries = retries_.load();
  result.generator_failed = generator_failed_.load();
  result.memory_releases = memory_releases_.load();
  result.last_sent_ns = last_sent_ns_.load();
  if (const std::optional<Clock::time_point> sent = workload_.LastSent()) {
    result.last_sent_ns = std::max(result.last_sent_ns, clock_.Since(*sent).count());
  }

  metrics::GeneratorHealth& h = result.health;
  h.scheduled = result.interrupted ? scheduled - 1 : scheduled;
  h.dispatched = result.issued;
  h.shed = result.shed;
  h.schedule_seconds = options_.profile.TotalSeconds();
  h.dispatch_seconds = std::chrono::duration<double>(last_dispatch - start).count();
  h.offered_rate = h.schedule_seconds > 0 ? static_cast<double>(h.scheduled) / h.schedule_seconds : 0;
  const double span = std::max(h.dispatch_seconds, h.schedule_seconds);
  h.achieved_rate = span > 0 ? static_cast<double>(handled) / span : 0;
  h.lag_p50_ms = Ms(lag_.ValueAtPercentile(50));
  h.lag_p99_ms = Ms(lag_.ValueAtPercentile(99));
  h.lag_max_ms = Ms(lag_.Max());
  h.cpu_seconds = cpu_after - cpu_before;
  const GeneratorWaitStats waits = workload_.GeneratorWaits();
  h.pool_waits = waits.waited;
  h.pool_wait_timeouts = waits.timed_out;
  h.pool_waited_then_deadline = waits.waited_then_timed_out;
  h.pool_wait_ms_total = Ms(waits.total_wait.count());
  h.pool_wait_ms_max = Ms(waits.max_wait.count());
  h.generator_failed = result.generator_failed;
  h.late_completions = late_completions_.load();
  h.completion_lag_max_ms = Ms(completion_lag_max_ns_.load());
  const std::uint64_t finished = result.ok + result.failed + result.generator_failed;
  std::string reason;
  if (h.lag_p99_ms > options_.max_lag_p99_ms) {
    reason = "dispatch lag p99 " + std::to_string(h.lag_p99_ms) + " ms exceeds " +
             std::to_string(options_.max_lag_p99_ms) + " ms";
  }
  if (!result.interrupted && h.offered_rate > 0 && h.achieved_rate < options_.min_achieved_ratio * h.offered_rate) {
    if (!reason.empty()) reason += "; ";
    reason += "achieved " + std::to_string(h.achieved_rate) + "/s of " + std::to_string(h.offered_rate) +
              "/s offered";
  }
  if (h.pool_wait_timeouts > 0 || h.pool_waited_then_deadline > 0 || h.generator_failed > 0) {
    if (!reason.empty()) reason += "; ";
    reason += std::to_string(h.generator_failed) + " calls failed on the generator's side: " +
              std::to_string(h.pool_wait_timeouts) +
              " attempts timed out waiting for a free connection in the generator's own pool and " +
              std::to_string(h.pool_waited_then_deadline) + " hit their deadline after waiting there (" +
              std::to_string(h.pool_waits) + " waited, " + std::to_string(h.pool_wait_ms_total / 1000.0) +
              " s in total, longest " + std::to_string(h.pool_wait_ms_max) +
              " ms); size the workload's pool (HttpWorkload max_connections, BlockingWorkload workers and "
              "queue) to the in-flight ceiling";
  }
  if (finished > 0 &&
      static_cast<double>(h.late_completions) > options_.max_late_completion_ratio * static_cast<double>(finished)) {
    if (!reason.empty()) reason += "; ";
    reason += std::to_string(h.late_completions) + " of " + std::to_string(finished) +
              " calls finished more than " + std::to_string(options_.max_completion_lag.count()) +
              " ms past their deadline (latest " + std::to_string(h.completion_lag_max_ms) +
              " ms): the generator's transport (or the host) could not keep up with completions, so their "
              "latencies are the generator's";
  }
  h.generator_limited = !reason.empty();
  h.reason = reason;
  return result;
}

metrics::SecondBucket OpenModelRunner::Recent(int seconds) const {
  metrics::SecondBucket merged;
  const std::int64_t now = clock_.Since(Clock::now()).count() / 1'000'000'000;
  std::lock_guard<std::mutex> lock(timeline_mu_);
  const auto& buckets = timeline_.seconds();
  const std::int64_t last = std::min<std::int64_t>(now, static_cast<std::int64_t>(buckets.size()) - 1);
  for (std::int64_t s = std::max<std::int64_t>(0, now - seconds + 1); s <= last; ++s) {
    merged.Merge(buckets[static_cast<std::size_t>(s)]);
  }
  return merged;
}

void OpenModelRunner::NoteSent(Clock::time_point at) {
  const std::int64_t ns = clock_.Since(at).count();
  std::int64_t seen = last_sent_ns_.load(std::memory_order_relaxed);
  while (ns > seen && !last_sent_ns_.compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {
  }
}

void OpenModelRunner::IssueAttempt(InFlightCall* call) {
  ++call->attempt;
  NoteSent(Clock::now());
  Attempt attempt;
  attempt.sequence = call->sequence;
  attempt.number = call->attempt;
  attempt.intended = call->intended;
  attempt.deadline = call->deadline;
  attempt.wall_deadline = call->wall_deadline;
  workload_.Issue(*call->state, attempt, AttemptDone(this, call));
}

void OpenModelRunner::OnAttemptDone(InFlightCall* call, CallCode code) {
  const Clock::time_point now = Clock::now();
  const OutcomePolicy& policy = options_.policy;
  // Once stopped (an interrupt, a safety abort) nothing more is sent, not even a retry.
  if (!stopping_.load(std::memory_order_acquire) && ShouldRetry(policy, idempotency_, code) &&
      call->attempt < policy.max_attempts) {
    auto backoff = policy.initial_backoff * (1 << std::min(call->attempt - 1, 16));
    backoff = std::min<std::chrono::milliseconds>(backoff, policy.max_backoff);
    double jitter;
    {
      std::lock_guard<std::mutex> lock(rng_mu_);
      jitter = std::uniform_real_distribution<double>(0.5, 1.0)(rng_);
    }
    const auto wait = std::chrono::duration_cast<Clock::duration>(backoff * jitter);
    if (now + wait < call->deadline) {
      retries_.fetch_add(1, std::memory_order_relaxed);
      {
        std::lock_guard<std::mutex> lock(timeline_mu_);
        ++timeline_.At(call->second).retries;
      }
      retry_timer_.Schedule(now + wait, [this, call, code] {
        if (stopping_.load(std::memory_order_acquire)) {
          Finalize(call, code, Clock::now());
        } else {
          IssueAttempt(call);
        }
      });
      return;
    }
  }
  Finalize(call, code, now);
}

void OpenModelRunner::Finalize(InFlightCall* call, CallCode code, Clock::time_point now) {
  const OutcomePolicy& policy = options_.policy;
  FinalOutcome outcome;
  outcome.code = code;
  outcome.ok = policy.is_success(code);
  outcome.indeterminate = !outcome.ok && policy.indeterminate.count(code) != 0;
  outcome.attempts = call->attempt;
  outcome.intended = call->intended;
  outcome.completed = now;
  workload_.OnFinal(*call->state, outcome);
  const std::int64_t latency = std::chrono::duration_cast<std::chrono::nanoseconds>(now - call->intended).count();
  if (now > call->deadline) {
    const std::int64_t past = std::chrono::duration_cast<std::chrono::nanoseconds>(now - call->deadline).count();
    std::int64_t seen = completion_lag_max_ns_.load(std::memory_order_relaxed);
    while (past > seen && !completion_lag_max_ns_.compare_exchange_weak(seen, past, std::memory_order_relaxed)) {
    }
    if (now - call->deadline > options_.max_completion_lag) late_completions_.fetch_add(1, std::memory_order_relaxed);
  }
  const bool generator_side = !outcome.ok && IsGeneratorSideCode(code);
  (outcome.ok ? ok_ : generator_side ? generator_failed_ : failed_).fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(timeline_mu_);
    metrics::SecondBucket& b = timeline_.At(call->second);
    b.latency.Record(latency);
    if (!generator_side && (outcome.attempts > 1 || !outcome.ok)) ++b.first_attempt_failed;
    if (outcome.ok) {
      ++b.ok;
      b.ok_latency.Record(latency);
      const std::int64_t completed_ns = std::max<std::int64_t>(0, clock_.Since(now).count());
      if (b.first_ok_of_intended_ns < 0 || completed_ns < b.first_ok_of_intended_ns) {
        b.first_ok_of_intended_ns = completed_ns;
      }
      timeline_.RecordOkCompletion(completed_ns);
    } else if (generator_side) {
      // The generator's own failure: visible by code and in generator_failed, never in `failed`.
      ++b.generator_failed;
      ++b.failed_by_code[code];
    } else {
      ++b.failed;
      ++b.failed_by_code[code];
      if (outcome.indeterminate) ++b.indeterminate;
    }
    final_seconds_.CallFinished(call->second, CompactSecondOf(timeline_, options_.compact_final_seconds));
  }
  delete call;
  // Decrement under the drain lock: once the waiter sees zero, this thread touches nothing more.
  std::lock_guard<std::mutex> lock(drain_mu_);
  if (in_flight_.fetch_sub(1, std::memory_order_acq_rel) == 1) drained_.notify_all();
}

void OpenModelRunner::WaitUntil(Clock::time_point until) {
  if (polled_) workload_.PollCompletionsUntil(until - options_.poll_slack);
  std::this_thread::sleep_until(until);  // the precise rest (nothing when the poll ran to `until`)
}

bool OpenModelRunner::WaitForZeroInFlight(std::unique_lock<std::mutex>& lock, Clock::time_point limit) {
  const auto drained = [this] { return in_flight_.load() == 0; };
  if (!polled_) return drained_.wait_until(lock, limit, drained);
  // The completions come only from polling, on this thread: poll in slices, without the lock that
  // Finalize takes to decrement the count.
  for (Clock::time_point now = Clock::now(); !drained(); now = Clock::now()) {
    if (now >= limit) return false;
    lock.unlock();
    workload_.PollCompletionsUntil(std::min(limit, now + std::chrono::milliseconds(100)));
    lock.lock();
  }
  return true;
}

void OpenModelRunner::WaitForDrain(Clock::time_point last_deadline) {
  std::unique_lock<std::mutex> lock(drain_mu_);
  const auto first_limit = std::max(last_deadline, Clock::now()) + options_.drain_grace;
  if (WaitForZeroInFlight(lock, first_limit)) return;
  std::fprintf(stderr,
               "aftershock: %lld calls still in flight %lld ms past their deadline: the workload must complete "
               "every attempt (call AttemptDone exactly once); waiting up to 30 s more\n",
               static_cast<long long>(in_flight_.load()), static_cast<long long>(options_.drain_grace.count()));
  if (WaitForZeroInFlight(lock, Clock::now() + std::chrono::seconds(30))) return;
  // Freeing the runner now would let those completions write to freed memory.
  std::fprintf(stderr, "aftershock: calls never completed; aborting rather than corrupting results\n");
  std::abort();
}

}  // namespace aftershock::load
