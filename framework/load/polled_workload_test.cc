// The runner with a workload it polls on its dispatcher thread (Workload::PolledByDispatcher): the
// same contract as with one that completes on its own threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

#include "framework/load/open_model_runner.h"

namespace aftershock::load {
namespace {

using std::chrono::milliseconds;

// Answers every attempt after `delay`, but only when polled: completions wait in a queue, like a
// gRPC CompletionQueue's. Records which threads delivered them.
class FakePolledWorkload : public Workload {
 public:
  explicit FakePolledWorkload(milliseconds delay) : delay_(delay) {}

  std::unique_ptr<CallState> NewCall(std::uint64_t) override { return std::make_unique<CallState>(); }
  void Issue(CallState&, const Attempt& attempt, AttemptDone done) override {
    const CallCode code = fail_first_attempt_ && attempt.number == 1 ? kCodeUnavailable : kCodeOk;
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back({Clock::now() + delay_, done, code});
  }
  Idempotency CallIdempotency() const override { return Idempotency::kIdempotent; }
  bool PolledByDispatcher() const override { return true; }
  void PollCompletionsUntil(Clock::time_point until) override {
    polls_.fetch_add(1);
    for (int i = 0; i < 100000; ++i) {
      Clock::time_point next = until;
      {
        std::unique_lock<std::mutex> lock(mu_);
        // Entries are in issue order; the same delay for all keeps them in answer order too.
        if (!queue_.empty() && queue_.front().at <= Clock::now()) {
          Pending p = queue_.front();
          queue_.pop_front();
          lock.unlock();
          delivered_on_.push_back(std::this_thread::get_id());  // the runner polls from one thread
          p.done(p.code);
          continue;
        }
        if (!queue_.empty()) next = std::min(until, queue_.front().at);
      }
      if (Clock::now() >= until) return;
      std::this_thread::sleep_until(next);
    }
  }

  bool fail_first_attempt_ = false;
  std::atomic<int> polls_{0};
  std::vector<std::thread::id> delivered_on_;

 private:
  struct Pending {
    Clock::time_point at;
    AttemptDone done;
    CallCode code;
  };
  milliseconds delay_;
  std::mutex mu_;
  std::deque<Pending> queue_;
};

// Not `Options`: open_model_runner_test.cc's, in the same unity batch, sets other fields.
RunnerOptions PolledOptions(double rate, double seconds) {
  RunnerOptions o;
  o.profile = RateProfile::Constant(rate, seconds);
  o.call_deadline = milliseconds(1000);
  o.max_lag_p99_ms = 1000;  // this test is about counts, not about the host's timing
  return o;
}

TEST(PolledWorkloadTest, EveryArrivalIsIssuedAndCompletedOnTheDispatcherThreadExactlyOncePerSecond) {
  const RunClock clock = RunClock::StartNow();
  FakePolledWorkload w(milliseconds(3));
  RunnerOptions o = PolledOptions(300, 3);
  o.dispatch_coalesce = std::chrono::microseconds(500);  // batching: still no arrival dropped or merged
  OpenModelRunner runner(w, o, clock);
  const RunResult r = runner.Run();
  // A last completion may land just past 3 s: a fourth second then holds completions, no arrival.
  const auto& seconds = r.timeline.seconds();
  ASSERT_GE(seconds.size(), 3u);
  for (std::size_t s = 0; s < seconds.size(); ++s) {
    const std::uint64_t expected = s < 3 ? 300 : 0;
    EXPECT_EQ(seconds[s].offered, expected) << "second " << s;
    EXPECT_EQ(seconds[s].ok, expected) << "second " << s;
    EXPECT_EQ(seconds[s].latency.Count(), expected) << "second " << s;
  }
  EXPECT_EQ(r.issued, 900u);
  EXPECT_EQ(r.ok, 900u);
  EXPECT_EQ(r.health.dispatched, r.health.scheduled);
  ASSERT_EQ(w.delivered_on_.size(), 900u);
  EXPECT_TRUE(std::all_of(w.delivered_on_.begin(), w.delivered_on_.end(),
                          [](std::thread::id id) { return id == std::this_thread::get_id(); }));
  EXPECT_GT(w.polls_.load(), 0);
}

TEST(PolledWorkloadTest, RetriesIssuedFromTheRetryThreadStillCompleteThroughThePoll) {
  const RunClock clock = RunClock::StartNow();
  FakePolledWorkload w(milliseconds(2));
  w.fail_first_attempt_ = true;
  OpenModelRunner runner(w, PolledOptions(100, 1), clock);
  const RunResult r = runner.Run();
  EXPECT_EQ(r.issued, 100u);
  EXPECT_EQ(r.ok, 100u);
  EXPECT_EQ(r.retries, 100u);
  EXPECT_EQ(w.delivered_on_.size(), 200u);  // two attempts a call
}

TEST(PolledWorkloadTest, TheDrainPollsUntilTheLastCallCompletes) {
  // Every answer comes 300 ms after its send, long after the last arrival: only the drain's polls
  // can deliver the last second's calls.
  const RunClock clock = RunClock::StartNow();
  FakePolledWorkload w(milliseconds(300));
  OpenModelRunner runner(w, PolledOptions(50, 1), clock);
  const RunResult r = runner.Run();
  EXPECT_EQ(r.ok, 50u);
  EXPECT_EQ(runner.Progress().in_flight, 0);
}

}  // namespace
}  // namespace aftershock::load
