// The safety envelope in a whole run (RunScenario over an in-process target, the watch built by
// SafetyWatch as the fixture builds it): a forced condition breaching mid-run stops the load within
// the 5 s contract (measured and printed), reverts the fault, turns run-not-aborted red with the
// reason and puts the abort on the chaos timeline; a generator signal (the transport-error ratio)
// breaches on real call outcomes; the operator halt stops a run when its file appears.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "framework/safety/safety_watch.h"
#include "framework/scenario/abort_gates.h"
#include "framework/scenario/internal/test_scenario_config.h"
#include "framework/scenario/internal/test_target.h"
#include "framework/scenario/scenario_run.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::safety {
namespace {

using ::testing::HasSubstr;
using scenario::internal::FindGate;
using std::chrono::milliseconds;
using std::chrono::seconds;

scenario::ScenarioPlan PlanOf(double rate, double seconds) {
  scenario::ScenarioPlan plan;
  plan.config = scenario::internal::TestScenarioConfig(rate, seconds, 1);
  plan.config.settle_seconds = 0;
  plan.progress_seconds = 0;
  return plan;
}

config::StopConditionSpec Spec(std::string name, std::string signal, double window, std::string comparator,
                               double threshold, double for_seconds) {
  return {.name = std::move(name), .promql = {}, .signal = std::move(signal), .window_seconds = window,
          .comparator = std::move(comparator), .threshold = threshold, .for_seconds = for_seconds,
          .breach_on_failure = true, .source = "test:1"};
}

const chaos::ChaosEvent* FindEvent(const std::vector<chaos::ChaosEvent>& events, const std::string& name) {
  auto it = std::find_if(events.begin(), events.end(), [&](const auto& e) { return e.event == name; });
  return it == events.end() ? nullptr : &*it;
}

TEST(EnvelopeRun, AForcedConditionStopsTheLoadWithinTheContractAndRevertsTheFault) {
  scenario::internal::InProcessTarget target;
  scenario::ScenarioPlan plan = PlanOf(300, 30);
  std::atomic<int> reverts{0};
  plan.faults = {{.at = milliseconds(200), .duration = seconds(25),
                  .fault = std::make_shared<chaos::LambdaFault>(
                      "stall", "held", chaos::LambdaFault::Callables{.apply = [] {}, .revert = [&] { ++reverts; },
                                                                     .not_confirmable = "a test fault"})}};
  const auto start = Clock::now();
  SafetyWatch watch;
  // Forced: the suite's own signal reads 1 from 1.5 s into the run on.
  watch.signals["forced"] = [start](milliseconds) { return Reading::Of(Clock::now() - start > milliseconds(1500) ? 1 : 0); };
  watch.conditions = {Spec("forced-breach", "forced", 1, ">", 0.5, 0),
                      Spec("errors", "error_ratio", 5, ">", 0.5, 0)};  // a generator signal that stays low
  watch.options.interval = milliseconds(100);
  plan.abort_monitor = watch.MonitorFactory();

  const scenario::ScenarioOutcome outcome = scenario::RunScenario(plan, target);
  ASSERT_TRUE(outcome.abort.has_value());
  std::printf("safety abort: breach at t=%.3f s, last request sent at t=%.3f s, stop latency %.3f s (contract 5 s)\n",
              outcome.abort->breach_seconds, outcome.abort->last_request_seconds, outcome.abort->stop_latency_seconds);
  EXPECT_EQ(outcome.abort->condition, "forced-breach");
  EXPECT_LE(outcome.abort->stop_latency_seconds, 5.0);  // the contract itself, not a speed claim
  EXPECT_LT(outcome.load.issued, 300u * 10);           // far from the 30 s profile's 9000 calls
  EXPECT_EQ(reverts.load(), 1);
  EXPECT_FALSE(outcome.interrupted);

  const gates::GateResult* red = FindGate(outcome, scenario::kRunNotAbortedGate);
  ASSERT_NE(red, nullptr);
  EXPECT_FALSE(red->passed);
  EXPECT_THAT(red->message, HasSubstr("by stop condition 'forced-breach': forced-breach: signal forced over 1 s = 1 > 0.5"));
  EXPECT_THAT(red->message, HasSubstr("2 stop conditions read every 100 ms"));
  const gates::GateResult* latency = FindGate(outcome, scenario::kAbortStopLatencyGate);
  ASSERT_NE(latency, nullptr);
  EXPECT_TRUE(latency->passed) << latency->message;

  const std::vector<chaos::ChaosEvent> events = outcome.chaos.events();
  const chaos::ChaosEvent* abort = FindEvent(events, "abort");
  const chaos::ChaosEvent* revert = FindEvent(events, "revert");
  ASSERT_NE(abort, nullptr);
  ASSERT_NE(revert, nullptr);
  EXPECT_THAT(abort->detail, HasSubstr("stop condition 'forced-breach'"));
  EXPECT_LE(abort->seconds, revert->seconds);
  EXPECT_LT(revert->seconds, 20);  // reverted at the abort, not at the plan's 25 s
}

// Calls fail with TRANSPORT_ERROR (a reset) from 1 s into the run on.
class ResettingWorkload : public load::Workload {
 public:
  explicit ResettingWorkload(RunClock clock) : clock_(clock) {}
  std::unique_ptr<load::CallState> NewCall(std::uint64_t) override { return std::make_unique<load::CallState>(); }
  void Issue(load::CallState&, const load::Attempt&, load::AttemptDone done) override {
    done(clock_.Since(Clock::now()) > seconds(1) ? kCodeTransportError : kCodeOk);
  }
  load::Idempotency CallIdempotency() const override { return load::Idempotency::kIdempotent; }

 private:
  RunClock clock_;
};

class ResettingTarget : public scenario::internal::InProcessTarget {
 public:
  std::unique_ptr<load::Workload> MakeWorkload(ledger::PromiseLedger&, const RunClock& clock) override {
    return std::make_unique<ResettingWorkload>(clock);
  }
};

TEST(EnvelopeRun, TheTransportErrorRatioOfTheGeneratorBreaches) {
  ResettingTarget target;
  scenario::ScenarioPlan plan = PlanOf(200, 30);
  SafetyWatch watch{.conditions = {Spec("resets", "transport_error_ratio", 2, ">", 0.05, 0.3)}};
  watch.options.interval = milliseconds(100);
  plan.abort_monitor = watch.MonitorFactory();
  const scenario::ScenarioOutcome outcome = scenario::RunScenario(plan, target);
  ASSERT_TRUE(outcome.abort.has_value());
  EXPECT_EQ(outcome.abort->condition, "resets");
  EXPECT_THAT(outcome.abort->reason, HasSubstr("resets: signal transport_error_ratio over 2 s = "));
  EXPECT_THAT(outcome.abort->reason, HasSubstr("calls completed)"));
  EXPECT_GE(outcome.abort->breach_seconds, 1.0);
  EXPECT_LE(outcome.abort->stop_latency_seconds, 5.0);
  std::printf("reset abort: breach at t=%.3f s, stop latency %.3f s\n", outcome.abort->breach_seconds,
              outcome.abort->stop_latency_seconds);
}

TEST(EnvelopeRun, TheOperatorHaltStopsARunWhenItsFileAppears) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("aftershock-envelope-halt-" + std::to_string(::getpid()));
  std::filesystem::remove(path);
  scenario::internal::InProcessTarget target;
  scenario::ScenarioPlan plan = PlanOf(100, 30);
  SafetyWatch watch{.halt = OperatorHalt(path.string())};
  watch.options.interval = milliseconds(100);
  plan.abort_monitor = watch.MonitorFactory();
  std::thread operator_([&] {
    std::this_thread::sleep_for(milliseconds(1000));
    std::ofstream(path) << "stop\n";
  });
  const scenario::ScenarioOutcome outcome = scenario::RunScenario(plan, target);
  operator_.join();
  // Refused while it exists (what the fixture checks before a new scenario).
  EXPECT_TRUE(watch.halt->Check().has_value());
  std::filesystem::remove(path);
  ASSERT_TRUE(outcome.abort.has_value());
  EXPECT_EQ(outcome.abort->condition, "operator-halt");
  const gates::GateResult* red = FindGate(outcome, scenario::kRunNotAbortedGate);
  ASSERT_NE(red, nullptr);
  EXPECT_FALSE(red->passed);
  EXPECT_THAT(red->message, HasSubstr("by the operator halt: " + path.string() + " exists"));
  EXPECT_LE(outcome.abort->stop_latency_seconds, 5.0);
}

}  // namespace
}  // namespace aftershock::safety
