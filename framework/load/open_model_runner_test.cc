#include "framework/load/open_model_runner.h"

#include <gtest/gtest.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "framework/load/internal/retry_timer.h"

namespace aftershock::load {
namespace {

using std::chrono::milliseconds;

// An in-process asynchronous service: answers each attempt on a timer thread, honouring the
// deadline like gRPC does (DEADLINE_EXCEEDED when the answer would come too late).
class FakeAsyncWorkload : public Workload {
 public:
  struct Answer {
    milliseconds delay{1};
    CallCode code = kCodeOk;
  };
  // Decides the answer of (sequence, attempt number, intended time offset).
  using Script = std::function<Answer(std::uint64_t, int, Clock::duration)>;
  FakeAsyncWorkload(RunClock clock, Script script) : clock_(clock), script_(std::move(script)) {}

  std::unique_ptr<CallState> NewCall(std::uint64_t) override { return std::make_unique<CallState>(); }
  void Issue(CallState&, const Attempt& attempt, AttemptDone done) override {
    attempts_.fetch_add(1);
    Answer a = script_(attempt.sequence, attempt.number, attempt.intended - clock_.start());
    auto when = Clock::now() + a.delay;
    if (honour_deadline_ && when > attempt.deadline) {
      when = attempt.deadline;
      a.code = kCodeDeadlineExceeded;
    }
    timer_.Schedule(when, [done, code = a.code] { done(code); });
  }
  Idempotency CallIdempotency() const override { return idempotency_; }
  void OnFinal(CallState&, const FinalOutcome& outcome) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (outcome.ok) ++finals_ok_;
    if (outcome.indeterminate) ++finals_indeterminate_;
  }

  std::atomic<int> attempts_{0};
  Idempotency idempotency_ = Idempotency::kIdempotent;
  bool honour_deadline_ = true;  // false: a transport that notices its deadline late
  std::mutex mu_;
  int finals_ok_ = 0, finals_indeterminate_ = 0;

 private:
  RunClock clock_;
  Script script_;
  internal::RetryTimer timer_;
};

RunnerOptions Options(double rate, double seconds) {
  RunnerOptions o;
  o.profile = RateProfile::Constant(rate, seconds);
  o.call_deadline = milliseconds(1000);
  o.max_in_flight = 10000;
  return o;
}

TEST(OpenModelRunnerTest, HealthyServiceGetsEveryArrivalOnSchedule) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
  OpenModelRunner runner(w, Options(200, 2), clock);
  RunResult r = runner.Run();
  // A later second may hold the completions of the last arrivals (by completion time), no offers.
  ASSERT_GE(r.timeline.seconds().size(), 2u);
  EXPECT_EQ(r.timeline.seconds()[0].offered, 200u);
  EXPECT_EQ(r.timeline.seconds()[1].offered, 200u);
  for (std::size_t s = 2; s < r.timeline.seconds().size(); ++s) EXPECT_EQ(r.timeline.seconds()[s].offered, 0u) << s;
  EXPECT_EQ(r.ok, 400u);
  EXPECT_EQ(r.failed, 0u);
  EXPECT_EQ(r.timeline.seconds()[0].stage, "load");
  EXPECT_EQ(r.health.scheduled, 400u);
  EXPECT_EQ(r.health.dispatched, 400u);
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(w.finals_ok_, 400);
  EXPECT_EQ(r.memory_releases, 0u);  // nothing piled up
}

// Runs `options` (a 2-second schedule) against an instant service and checks the dispatcher's
// contract: every arrival issued exactly once, in order, never before its intended time, the count
// per second equal to the schedule, and one lag value per arrival.
void ExpectEveryArrivalOnceInOrderAndNeverEarly(RunnerOptions options, std::uint64_t per_second) {
  RunClock clock = RunClock::StartNow();
  std::mutex mu;
  std::vector<std::uint64_t> sequences;
  std::atomic<int> early{0};
  FakeAsyncWorkload w(clock, [&](std::uint64_t sequence, int, Clock::duration intended) {
    if (Clock::now() < clock.start() + intended) early.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu);
    sequences.push_back(sequence);
    return FakeAsyncWorkload::Answer{};
  });
  RunResult r = OpenModelRunner(w, std::move(options), clock).Run();
  // A third second may hold the completions of the last arrivals (by completion time), no offers.
  ASSERT_GE(r.timeline.seconds().size(), 2u);
  EXPECT_EQ(r.timeline.seconds()[0].offered, per_second);
  EXPECT_EQ(r.timeline.seconds()[1].offered, per_second);
  if (r.timeline.seconds().size() > 2) {
    EXPECT_EQ(r.timeline.seconds()[2].offered, 0u);
  }
  EXPECT_EQ(r.ok, 2 * per_second);
  EXPECT_EQ(r.health.scheduled, 2 * per_second);
  EXPECT_EQ(r.health.dispatched, 2 * per_second);
  EXPECT_EQ(early.load(), 0);
  ASSERT_EQ(sequences.size(), 2 * per_second);
  for (std::size_t i = 0; i < sequences.size(); ++i) ASSERT_EQ(sequences[i], i) << "arrival " << i;
  // Waiting longer shows in the lag, not as a loss: the lag histogram holds one value per arrival.
  std::uint64_t lag_values = 0;
  for (const auto& second : r.timeline.seconds()) lag_values += second.dispatch_lag.Count();
  EXPECT_EQ(lag_values, 2 * per_second);
}

// Coalesced dispatch: every arrival is still issued exactly once, in order, never before its
// intended time, and the count per second equals the schedule exactly.
TEST(OpenModelRunnerTest, CoalescedDispatchIssuesEveryArrivalOnceInOrderAndNeverEarly) {
  RunnerOptions options = Options(1500, 2);
  options.dispatch_coalesce = std::chrono::microseconds(2000);  // ~3 arrivals a wake-up
  ExpectEveryArrivalOnceInOrderAndNeverEarly(std::move(options), 1500);
}

// Waiting in slices: the same contract.
TEST(OpenModelRunnerTest, SlicedWaitsIssueEveryArrivalOnceInOrderAndNeverEarly) {
  RunnerOptions options = Options(300, 2);
  options.wake_slice = std::chrono::microseconds(100);  // ~33 wake-ups an arrival
  ExpectEveryArrivalOnceInOrderAndNeverEarly(std::move(options), 300);
}

// Two shards of one schedule on one clock merge into exactly the timeline's counts of one generator.
TEST(OpenModelRunnerTest, ShardsOfOneScheduleMergeIntoTheWholeSchedule) {
  RunClock clock = RunClock::StartNow();
  RunResult results[2];
  std::thread workers[2];
  for (int shard = 0; shard < 2; ++shard) {
    workers[shard] = std::thread([&, shard] {
      FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
      RunnerOptions options = Options(301, 2);
      options.shard = shard;
      options.shard_count = 2;
      results[shard] = OpenModelRunner(w, options, clock).Run();
    });
  }
  for (std::thread& t : workers) t.join();
  EXPECT_EQ(results[0].health.scheduled, 301u);  // sequences 0, 2, ..., 600
  EXPECT_EQ(results[1].health.scheduled, 301u);  // 1, 3, ..., 601
  EXPECT_DOUBLE_EQ(results[0].health.offered_rate, 150.5);
  metrics::LoadTimeline merged = results[0].timeline;
  merged.Merge(results[1].timeline);
  ASSERT_GE(merged.seconds().size(), 2u);
  EXPECT_EQ(merged.seconds()[0].offered, 301u);
  EXPECT_EQ(merged.seconds()[1].offered, 301u);
  EXPECT_EQ(results[0].ok + results[1].ok, 602u);
  RunnerOptions bad = Options(10, 1);
  bad.shard = 2;
  bad.shard_count = 2;
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
  EXPECT_THROW(OpenModelRunner(w, bad, clock), std::invalid_argument);
}

TEST(OpenModelRunnerTest, StallKeepsOfferedLoadFlatAndLandsInLatencyOfItsSeconds) {
  RunClock clock = RunClock::StartNow();
  // Calls intended in [1 s, 1.5 s) are held until 2.5 s: a 1.5 s stall.
  FakeAsyncWorkload w(clock, [&](auto, int, Clock::duration at) {
    if (at >= std::chrono::seconds(1) && at < milliseconds(1500)) {
      auto release = clock.start() + milliseconds(2500);
      return FakeAsyncWorkload::Answer{std::chrono::duration_cast<milliseconds>(release - Clock::now()), kCodeOk};
    }
    return FakeAsyncWorkload::Answer{};
  });
  RunnerOptions o = Options(100, 3);
  o.call_deadline = milliseconds(5000);
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  // A later second may hold the completions of the last arrivals (by completion time), no offers.
  ASSERT_GE(r.timeline.seconds().size(), 3u);
  for (std::size_t s = 0; s < r.timeline.seconds().size(); ++s) {
    EXPECT_EQ(r.timeline.seconds()[s].offered, s < 3 ? 100u : 0u) << s;  // open model: flat
  }
  const auto& stalled = r.timeline.seconds()[1];
  EXPECT_GE(stalled.latency.Max(), 1'400'000'000);  // the first stalled call waited ~1.5 s
  EXPECT_GE(stalled.latency.ValueAtPercentile(99), 1'000'000'000);
  EXPECT_LT(r.timeline.seconds()[0].latency.Max(), 500'000'000);
  EXPECT_EQ(r.ok, 300u);
}

// A stall piles 300 calls up; once they are answered the runner hands their memory back, once.
TEST(OpenModelRunnerTest, ADrainedPileUpReleasesFreeMemoryOnceUnlessTurnedOff) {
  for (const int pileup : {256, 0}) {
    RunClock clock = RunClock::StartNow();
    FakeAsyncWorkload w(clock, [&](auto, int, Clock::duration at) {
      if (at >= milliseconds(500) && at < milliseconds(1000)) {
        auto release = clock.start() + milliseconds(1200);
        return FakeAsyncWorkload::Answer{std::chrono::duration_cast<milliseconds>(release - Clock::now()), kCodeOk};
      }
      return FakeAsyncWorkload::Answer{};
    });
    RunnerOptions o = Options(600, 2);
    o.call_deadline = milliseconds(5000);
    o.release_memory_after_pileup = pileup;
    OpenModelRunner runner(w, o, clock);
    RunResult r = runner.Run();
    EXPECT_EQ(r.ok, 1200u) << pileup;
#if defined(__GLIBC__)
    EXPECT_EQ(r.memory_releases, pileup > 0 ? 1u : 0u) << pileup;
#else
    EXPECT_EQ(r.memory_releases, 0u) << pileup;
#endif
  }
}

TEST(OpenModelRunnerTest, StallLongerThanTheDeadlineGivesFailuresNotSlowOks) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, Clock::duration at) {
    if (at >= milliseconds(500)) return FakeAsyncWorkload::Answer{milliseconds(20000), kCodeOk};
    return FakeAsyncWorkload::Answer{};
  });
  RunnerOptions o = Options(50, 2);
  o.call_deadline = milliseconds(300);
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  EXPECT_EQ(r.ok, 25u);
  EXPECT_EQ(r.failed, 75u);
  EXPECT_EQ(r.timeline.seconds()[1].failed_by_code.at(kCodeDeadlineExceeded), 50u);
  EXPECT_EQ(r.timeline.seconds()[1].indeterminate, 50u);
  EXPECT_EQ(r.timeline.seconds()[1].ok, 0u);
  EXPECT_EQ(w.finals_indeterminate_, 75);
  // Deadline failures seen at their deadline are the service's, not a late generator's.
  EXPECT_EQ(r.health.late_completions, 0u);
  EXPECT_LT(r.health.completion_lag_max_ms, 500);
  EXPECT_EQ(r.health.reason.find("past their deadline"), std::string::npos) << r.health.reason;
}

TEST(OpenModelRunnerTest, CompletionsNoticedLongAfterTheirDeadlineAreGeneratorLimited) {
  // The weekly alert-chain run of 2026-12-02: a 2 s deadline, failures seen 4-9 s after their send
  // because the transport's threads fell behind. Their latency is the generator's, and the verdict
  // must say so rather than blame the service (or the in-flight ceiling).
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{milliseconds(900), kCodeUnavailable}; });
  w.honour_deadline_ = false;
  RunnerOptions o = Options(50, 1);
  o.call_deadline = milliseconds(100);
  o.max_lag_p99_ms = 50;
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  EXPECT_EQ(r.failed, 50u);
  EXPECT_EQ(r.health.late_completions, 50u);
  EXPECT_GE(r.health.completion_lag_max_ms, 700);
  EXPECT_TRUE(r.health.generator_limited);
  EXPECT_NE(r.health.reason.find("50 of 50 calls finished more than 500 ms past their deadline"), std::string::npos)
      << r.health.reason;
}

TEST(OpenModelRunnerTest, InternalIsNeverRetriedByDefault) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{milliseconds(1), kCodeInternal}; });
  OpenModelRunner runner(w, Options(100, 1), clock);
  RunResult r = runner.Run();
  EXPECT_EQ(r.failed, 100u);
  EXPECT_EQ(r.retries, 0u);
  EXPECT_EQ(w.attempts_.load(), 100);
  EXPECT_EQ(r.timeline.seconds()[0].failed_by_code.at(kCodeInternal), 100u);
  EXPECT_EQ(r.timeline.seconds()[0].indeterminate, 0u);  // INTERNAL is a definite failure
}

TEST(OpenModelRunnerTest, UnavailableIsRetriedWithinTheDeadline) {
  RunClock clock = RunClock::StartNow();
  // First two attempts UNAVAILABLE, third OK.
  FakeAsyncWorkload w(clock, [](auto, int attempt, auto) {
    return FakeAsyncWorkload::Answer{milliseconds(1), attempt < 3 ? kCodeUnavailable : kCodeOk};
  });
  OpenModelRunner runner(w, Options(100, 1), clock);
  RunResult r = runner.Run();
  EXPECT_EQ(r.ok, 100u);
  EXPECT_EQ(r.failed, 0u);
  EXPECT_EQ(r.retries, 200u);
  EXPECT_EQ(r.timeline.seconds()[0].retries, 200u);
  EXPECT_EQ(w.attempts_.load(), 300);
}

TEST(OpenModelRunnerTest, NonIdempotentWorkloadNeverRetriesACallThatMayHaveBeenApplied) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int attempt, auto) {
    return FakeAsyncWorkload::Answer{milliseconds(1), attempt < 3 ? kCodeUnavailable : kCodeOk};
  });
  w.idempotency_ = Idempotency::kNonIdempotent;
  OpenModelRunner runner(w, Options(50, 1), clock);  // the default policy lists UNAVAILABLE as retryable
  RunResult r = runner.Run();
  EXPECT_EQ(r.retries, 0u);
  EXPECT_EQ(w.attempts_.load(), 50);
  EXPECT_EQ(r.failed, 50u);
  EXPECT_EQ(w.finals_indeterminate_, 50);  // reported as unknown, never sent twice
}

TEST(OpenModelRunnerTest, NonIdempotentWorkloadRetriesWhatWasCertainlyNotSent) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int attempt, auto) {
    return FakeAsyncWorkload::Answer{milliseconds(1), attempt < 2 ? kCodeNotSent : kCodeOk};
  });
  w.idempotency_ = Idempotency::kNonIdempotent;
  RunnerOptions o = Options(50, 1);
  o.policy.retryable = {kCodeUnavailable, kCodeNotSent};
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  EXPECT_EQ(r.ok, 50u);
  EXPECT_EQ(r.retries, 50u);
}

TEST(OpenModelRunnerTest, UndeclaredWorkloadUnderARetryingPolicyIsRefusedBeforeTheRun) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
  w.idempotency_ = Idempotency::kUndeclared;
  try {
    OpenModelRunner runner(w, Options(10, 1), clock);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("retries UNAVAILABLE"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("CallIdempotency"), std::string::npos) << e.what();
  }
  // Retrying only "certainly not applied" codes needs no declaration.
  RunnerOptions o = Options(10, 1);
  o.policy.retryable = {kCodeNotSent};
  EXPECT_NO_THROW(OpenModelRunner(w, o, clock));
  EXPECT_EQ(w.attempts_.load(), 0);
}

TEST(OpenModelRunnerTest, RetriesStopAtTheDeadline) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{milliseconds(30), kCodeUnavailable}; });
  RunnerOptions o = Options(20, 1);
  o.call_deadline = milliseconds(200);
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  EXPECT_EQ(r.ok, 0u);
  EXPECT_EQ(r.failed, 20u);
  // The last attempt either came back UNAVAILABLE or ran into the deadline.
  const auto& codes = r.timeline.seconds()[0].failed_by_code;
  const auto count = [&](CallCode c) { return codes.count(c) ? codes.at(c) : 0; };
  EXPECT_EQ(count(kCodeUnavailable) + count(kCodeDeadlineExceeded), 20u);
  EXPECT_EQ(count(kCodeInternal), 0u);
  EXPECT_GT(r.retries, 20u);  // at least one retry each fits in 200 ms
  EXPECT_LT(w.attempts_.load(), 20 * 8);
  // Latency of a failed call is bounded by the deadline (plus scheduling slack).
  EXPECT_LT(r.timeline.seconds()[0].latency.Max(), 700'000'000);
}

TEST(OpenModelRunnerTest, FullInFlightCeilingShedsArrivalsAndCountsThem) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{milliseconds(800), kCodeOk}; });
  RunnerOptions o = Options(100, 1);
  o.max_in_flight = 10;
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  EXPECT_EQ(r.timeline.seconds()[0].offered, 100u);
  EXPECT_EQ(r.ok + r.shed, 100u);
  EXPECT_GE(r.shed, 80u);
  EXPECT_EQ(r.timeline.seconds()[0].shed, r.shed);
  EXPECT_EQ(r.timeline.seconds()[0].failed_by_code.at(kCodeShed), r.shed);
  EXPECT_EQ(r.health.shed, r.shed);
}

TEST(OpenModelRunnerTest, LateDispatcherIssuesEveryArrivalAndRecordsTheLag) {
  RunClock clock = RunClock::StartNow();
  class SlowStart : public FakeAsyncWorkload {
   public:
    using FakeAsyncWorkload::FakeAsyncWorkload;
    std::unique_ptr<CallState> NewCall(std::uint64_t n) override {
      if (n == 10) std::this_thread::sleep_for(milliseconds(300));  // the generator falls behind once
      return FakeAsyncWorkload::NewCall(n);
    }
  } w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
  RunnerOptions o = Options(100, 1);
  o.max_lag_p99_ms = 50;
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  EXPECT_EQ(r.timeline.seconds()[0].offered, 100u);  // never skipped, never merged
  EXPECT_EQ(r.ok, 100u);
  EXPECT_GE(r.timeline.seconds()[0].dispatch_lag.Max(), 200'000'000);
  EXPECT_GE(r.health.lag_max_ms, 200);
  EXPECT_TRUE(r.health.generator_limited);
  EXPECT_NE(r.health.reason.find("dispatch lag p99"), std::string::npos) << r.health.reason;
}

TEST(OpenModelRunnerTest, HealthyRunIsNotGeneratorLimited) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
  RunnerOptions o = Options(500, 1);
  o.max_lag_p99_ms = 50;  // generous: the machine is shared
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  EXPECT_FALSE(r.health.generator_limited) << r.health.reason;
  EXPECT_NEAR(r.health.achieved_rate, 500, 50);
  EXPECT_DOUBLE_EQ(r.health.offered_rate, 500);
}

TEST(OpenModelRunnerTest, StopRequestEndsDispatchEarly) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
  RunnerOptions o = Options(10, 30);
  o.stop_requested = [&] { return Clock::now() - clock.start() > milliseconds(500); };
  OpenModelRunner runner(w, o, clock);
  const auto t0 = Clock::now();
  RunResult r = runner.Run();
  EXPECT_TRUE(r.interrupted);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(10));
  EXPECT_GE(r.ok, 5u);
  EXPECT_LE(r.ok, 7u);
}

TEST(OpenModelRunnerTest, ReportsTheLastRequestSentAndWhenTheStopWasSeen) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
  RunnerOptions o = Options(20, 30);
  o.stop_requested = [&] { return Clock::now() - clock.start() > milliseconds(600); };
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  ASSERT_TRUE(r.interrupted);
  ASSERT_GE(r.last_sent_ns, 0);
  ASSERT_GE(r.stop_seen_ns, 0);
  // At 20/s the last arrival before the stop was at most one gap (50 ms) earlier; nothing after it.
  EXPECT_LE(r.last_sent_ns, r.stop_seen_ns);
  EXPECT_GE(r.last_sent_ns, r.stop_seen_ns - 200'000'000);
}

TEST(OpenModelRunnerTest, NothingRunsWithoutArrivalsSoTheLastSentIsUnset) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
  RunnerOptions o = Options(1, 30);
  o.stop_requested = [] { return true; };
  RunResult r = OpenModelRunner(w, o, clock).Run();
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.last_sent_ns, -1);
  EXPECT_EQ(w.attempts_.load(), 0);
}

// At one arrival every 10 s the dispatcher sleeps between arrivals; the stop must still be seen
// within its 100 ms poll slice, not at the next arrival.
TEST(OpenModelRunnerTest, StopIsSeenBetweenArrivalsAtALowRate) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
  RunnerOptions o = Options(0.1, 60);
  std::atomic<bool> stop{false};
  o.stop_requested = [&] { return stop.load(); };
  OpenModelRunner runner(w, o, clock);
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(300));
    stop = true;
  });
  RunResult r = runner.Run();
  stopper.join();
  EXPECT_TRUE(r.interrupted);
  EXPECT_LT(r.stop_seen_ns, 5'000'000'000);  // the 5 s abort contract (docs/safety.md), not a speed claim
  EXPECT_EQ(w.attempts_.load(), 1);           // the arrival at t=0 only
}

// Once stopped nothing more is sent: a call that would be retried ends with its last code.
TEST(OpenModelRunnerTest, NoRetryIsSentAfterTheStop) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) {
    return FakeAsyncWorkload::Answer{.delay = milliseconds(1), .code = kCodeUnavailable};
  });
  RunnerOptions o = Options(50, 30);
  o.call_deadline = milliseconds(3000);
  o.policy.initial_backoff = milliseconds(100);
  o.policy.max_backoff = milliseconds(100);
  o.stop_requested = [&] { return Clock::now() - clock.start() > milliseconds(500); };
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  ASSERT_TRUE(r.interrupted);
  EXPECT_GT(r.failed, 0u);
  // No retry went out after the stop (a retry timer that checked the flag just before the stop may
  // still be sending as it is set: a scheduling race, hence the slack).
  EXPECT_LE(r.last_sent_ns, r.stop_seen_ns + 100'000'000);
  EXPECT_EQ(r.ok + r.failed, r.issued);
}

TEST(OpenModelRunnerTest, RecentMergesTheLastSecondsOfTheTimeline) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
  RunnerOptions o = Options(100, 1.5);
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  EXPECT_EQ(runner.Recent(0).offered, 0u);
  // The run is over (second 1 or later now): the last 10 s hold every arrival.
  const metrics::SecondBucket all = runner.Recent(10);
  EXPECT_EQ(all.offered, r.issued + r.shed);
  EXPECT_EQ(all.ok, r.ok);
}

// The same second with every histogram in its dense form (FromBuckets builds dense ones).
metrics::SecondBucket Dense(metrics::SecondBucket s) {
  for (metrics::LatencyHistogram* h : {&s.latency, &s.ok_latency, &s.dispatch_lag}) {
    *h = metrics::LatencyHistogram::FromBuckets(h->ToBuckets());
  }
  return s;
}

TEST(OpenModelRunnerTest, FinishedSecondsAreCompactedAndAStragglerStillCountsExactly) {
  RunClock clock = RunClock::StartNow();
  // The first call of second 0 is reported 2.5 s late, long past its 1 s deadline (a transport
  // that notices its deadline late), when the dispatcher is in second 2.
  FakeAsyncWorkload w(clock, [](std::uint64_t sequence, int, auto) {
    return FakeAsyncWorkload::Answer{milliseconds(sequence == 0 ? 2500 : 1), kCodeOk};
  });
  w.honour_deadline_ = false;
  RunnerOptions o = Options(50, 3);
  o.max_lag_p99_ms = 50;
  OpenModelRunner runner(w, o, clock);
  RunResult r = runner.Run();
  // A later second may hold the completions of the last arrivals (by completion time), no offers.
  ASSERT_GE(r.timeline.seconds().size(), 3u);
  for (std::size_t s = 3; s < r.timeline.seconds().size(); ++s) EXPECT_EQ(r.timeline.seconds()[s].offered, 0u) << s;
  EXPECT_EQ(r.ok, 150u);
  const metrics::SecondBucket& s0 = r.timeline.seconds()[0];
  EXPECT_EQ(s0.ok, 50u);
  EXPECT_EQ(s0.latency.Count(), 50u);
  EXPECT_EQ(s0.ok_latency.Count(), 50u);
  EXPECT_GE(s0.latency.Max(), 2'500'000'000);  // the straggler is in its intended second
  EXPECT_GE(s0.ok_latency.Max(), 2'500'000'000);
  // Every second is final at the end of the run, so compact; its figures are the dense ones.
  std::ostringstream compact_csv, dense_csv;
  metrics::LoadTimeline dense(r.timeline.clock());
  for (std::int64_t second = 0; second < r.timeline.size(); ++second) {
    const metrics::SecondBucket& s = r.timeline.seconds()[static_cast<std::size_t>(second)];
    EXPECT_TRUE(s.latency.is_compact() && s.ok_latency.is_compact() && s.dispatch_lag.is_compact()) << second;
    dense.At(second) = Dense(s);
    EXPECT_FALSE(dense.seconds()[static_cast<std::size_t>(second)].latency.is_compact());
  }
  metrics::WriteLoadTimelineCsv(r.timeline, compact_csv);
  metrics::WriteLoadTimelineCsv(dense, dense_csv);
  EXPECT_EQ(compact_csv.str(), dense_csv.str());
}

// Takes two fresh absl::Mutexes in both orders: an abseil that tracks lock order reports the second
// order as a potential deadlock, and aborts in kAbort mode.
void InvertLockOrder() {
  absl::Mutex a, b;
  {
    absl::MutexLock la(&a);
    absl::MutexLock lb(&b);
  }
  {
    absl::MutexLock lb(&b);
    absl::MutexLock la(&a);
  }
}

// Whether this process's abseil tracks lock order at all (a build without NDEBUG, as Debian's), seen
// in a forked child so that this process's mode stays as it was.
bool AbseilTracksLockOrder() {
  const pid_t pid = fork();
  if (pid == 0) {
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kAbort);
    InvertLockOrder();
    _exit(0);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return false;
  return WIFSIGNALED(status);
}

void RunBriefly(bool abseil_deadlock_detection) {
  RunClock clock = RunClock::StartNow();
  FakeAsyncWorkload w(clock, [](auto, int, auto) { return FakeAsyncWorkload::Answer{}; });
  RunnerOptions options = Options(100, 0.1);
  options.abseil_deadlock_detection = abseil_deadlock_detection;
  OpenModelRunner runner(w, std::move(options), clock);
  if (runner.Run().ok != 10) std::_Exit(3);
}

TEST(OpenModelRunnerTest, RunTurnsAbseilsLockOrderTrackingOffUnlessAsked) {
  if (!AbseilTracksLockOrder()) GTEST_SKIP() << "this abseil does not track lock order (built with NDEBUG)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Red side first: asked to keep it, the runner leaves the tracking on, and an inversion aborts.
  EXPECT_DEATH(
      {
        absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kAbort);
        RunBriefly(/*abseil_deadlock_detection=*/true);
        InvertLockOrder();
      },
      "deadlock");
  // By default the run switches it off for the process: the same inversion passes.
  EXPECT_EXIT(
      {
        absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kAbort);
        RunBriefly(/*abseil_deadlock_detection=*/false);
        InvertLockOrder();
        std::exit(0);
      },
      testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace aftershock::load
