// RunScenario end to end against in-process services with a known fault: a service that answers every
// call late turns latency-p99 red, one that fails half its first attempts behind the retry policy
// turns retry-amplification red; the same runs without the fault are green.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "framework/scenario/internal/test_scenario_config.h"
#include "framework/scenario/internal/test_target.h"
#include "framework/scenario/scenario_run.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::scenario {
namespace latency_retry_run_test {

using ::testing::HasSubstr;
using internal::FindGate;

// Answers every call `delay` after it was issued, in issue order, from one thread of its own; the
// first attempt of every second call fails UNAVAILABLE when `fail_first_attempts`.
class SlowWorkload : public load::Workload {
 public:
  SlowWorkload(std::chrono::milliseconds delay, bool fail_first_attempts)
      : delay_(delay), fail_first_attempts_(fail_first_attempts), thread_([this] { Answer(); }) {}
  ~SlowWorkload() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  std::unique_ptr<load::CallState> NewCall(std::uint64_t) override { return std::make_unique<load::CallState>(); }
  void Issue(load::CallState&, const load::Attempt& attempt, load::AttemptDone done) override {
    if (fail_first_attempts_ && attempt.number == 1 && attempt.sequence % 2 == 0) {
      done(kCodeUnavailable);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      due_.emplace_back(std::chrono::steady_clock::now() + delay_, std::move(done));
    }
    cv_.notify_all();
  }
  load::Idempotency CallIdempotency() const override { return load::Idempotency::kIdempotent; }

 private:
  void Answer() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return stop_ || !due_.empty(); });
      if (due_.empty()) return;  // stopped, and every call answered
      auto [at, done] = std::move(due_.front());
      due_.pop_front();
      cv_.wait_until(lock, at, [this] { return false; });
      lock.unlock();
      done(kCodeOk);
      lock.lock();
    }
  }

  const std::chrono::milliseconds delay_;
  const bool fail_first_attempts_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<std::chrono::steady_clock::time_point, load::AttemptDone>> due_;
  bool stop_ = false;
  std::thread thread_;
};

class SlowTarget : public internal::InProcessTarget {
 public:
  SlowTarget(std::chrono::milliseconds delay, bool fail_first_attempts)
      : delay_(delay), fail_first_attempts_(fail_first_attempts) {}
  std::unique_ptr<load::Workload> MakeWorkload(ledger::PromiseLedger&, const RunClock&) override {
    return std::make_unique<SlowWorkload>(delay_, fail_first_attempts_);
  }

 private:
  std::chrono::milliseconds delay_;
  bool fail_first_attempts_;
};

ScenarioPlan Plan() {
  ScenarioPlan plan;
  plan.config = internal::TestScenarioConfig(20, 2, 1);  // 20/s for 2 s, 1 s deadline
  plan.config.settle_seconds = 0;
  plan.config.max_latency_p99_seconds = 0.2;
  plan.progress_seconds = 0;
  return plan;
}

TEST(LatencyAndRetryGatesEndToEnd, AServiceThatAnswersEveryCallLateIsRedOnLatencyAlone) {
  SlowTarget target(std::chrono::milliseconds(600), false);  // 60 % of the deadline
  const ScenarioOutcome outcome = RunScenario(Plan(), target);
  const gates::GateResult* latency = FindGate(outcome, "latency-p99");
  ASSERT_NE(latency, nullptr);
  EXPECT_FALSE(latency->passed) << latency->message;
  EXPECT_THAT(latency->message, HasSubstr("> 200 ms budget"));
  // Everything else is green: every call succeeded in time, nothing else could have caught it.
  for (const gates::GateResult& g : outcome.gates) {
    if (g.name != "latency-p99") {
      EXPECT_TRUE(g.passed) << g.name << ": " << g.message;
    }
  }
}

TEST(LatencyAndRetryGatesEndToEnd, HalfTheFirstAttemptsUnavailableBehindRetriesIsRedOnRetries) {
  SlowTarget target(std::chrono::milliseconds(1), true);
  const ScenarioOutcome outcome = RunScenario(Plan(), target);
  EXPECT_EQ(outcome.load.failed, 0u);  // the retries hid every failure from the final outcome
  const gates::GateResult* retries = FindGate(outcome, "retry-amplification");
  ASSERT_NE(retries, nullptr);
  EXPECT_FALSE(retries->passed) << retries->message;
  EXPECT_THAT(retries->message, HasSubstr("first attempts failed for 50 % of 40 issued calls"));
  EXPECT_TRUE(FindGate(outcome, "p1-unavailable-seconds")->passed);
}

TEST(LatencyAndRetryGatesEndToEnd, AHealthyServiceIsGreenOnBoth) {
  SlowTarget target(std::chrono::milliseconds(1), false);
  const ScenarioOutcome outcome = RunScenario(Plan(), target);
  EXPECT_TRUE(FindGate(outcome, "latency-p99")->passed) << FindGate(outcome, "latency-p99")->message;
  EXPECT_FALSE(FindGate(outcome, "latency-p99")->not_applicable);
  EXPECT_TRUE(FindGate(outcome, "retry-amplification")->passed);
  EXPECT_TRUE(gates::AllPassed(outcome.gates)) << gates::FormatGateReport(outcome.gates);
}

}  // namespace latency_retry_run_test
}  // namespace aftershock::scenario
