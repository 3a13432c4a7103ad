// RunScenario with a safety watch (ScenarioPlan::abort_monitor) over an in-process target, the watch
// scripted here (framework/safety's AbortEnvelope has its own RunScenario test): a breach mid-run
// stops the load, reverts the faults at once, lands on the chaos timeline and turns run-not-aborted
// red; a watch without a breach leaves both gates green / N/A.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>

#include "framework/scenario/abort_gates.h"
#include "framework/scenario/internal/test_scenario_config.h"
#include "framework/scenario/internal/test_target.h"
#include "framework/scenario/scenario_run.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::scenario {
namespace {

using ::testing::HasSubstr;
using internal::FindGate;

// Breaches `after` past its creation, with a fixed reason.
class TimedMonitor : public AbortMonitor {
 public:
  explicit TimedMonitor(std::chrono::milliseconds after) : due_(Clock::now() + after) {}
  bool Breached() const override { return Clock::now() >= due_; }
  std::optional<AbortRequest> FirstBreach() const override {
    if (!Breached()) return std::nullopt;
    return AbortRequest{.condition = "forced", .reason = "forced: 1 > 0", .at = due_,
                        .wall_at = std::chrono::system_clock::now() - (Clock::now() - due_)};
  }
  std::vector<std::string> Notes() const override { return {"1 condition watched"}; }

 private:
  Clock::time_point due_;
};

ScenarioPlan PlanOf(double rate, double seconds) {
  ScenarioPlan plan;
  plan.config = internal::TestScenarioConfig(rate, seconds, 1);
  plan.config.settle_seconds = 0;
  plan.progress_seconds = 0;
  return plan;
}

TEST(AbortRun, ABreachMidRunStopsTheLoadRevertsTheFaultAndTurnsTheGateRed) {
  internal::InProcessTarget target;
  ScenarioPlan plan = PlanOf(200, 30);
  std::atomic<bool> applied{false};
  std::atomic<int> reverts{0};
  auto fault = std::make_shared<chaos::LambdaFault>(
      "stall", "held", chaos::LambdaFault::Callables{.apply = [&] { applied = true; },
                                                     .revert = [&] { ++reverts; },
                                                     .not_confirmable = "a test fault"});
  plan.faults = {{.at = std::chrono::milliseconds(100), .duration = std::chrono::seconds(20), .fault = fault}};
  plan.abort_monitor = [](const load::OpenModelRunner&) {
    return std::make_unique<TimedMonitor>(std::chrono::milliseconds(1000));
  };
  const auto t0 = Clock::now();
  const ScenarioOutcome outcome = RunScenario(plan, target);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(20));  // not the 30 s of the profile

  ASSERT_TRUE(outcome.abort.has_value());
  EXPECT_FALSE(outcome.interrupted);  // an abort, not a SIGINT
  EXPECT_EQ(outcome.abort->condition, "forced");
  EXPECT_GE(outcome.abort->last_request_seconds, 0);
  std::printf("stop latency: %.3f s (contract 5 s)\n", outcome.abort->stop_latency_seconds);
  EXPECT_LE(outcome.abort->stop_latency_seconds, 5.0);
  EXPECT_TRUE(applied);
  EXPECT_EQ(reverts.load(), 1);

  const gates::GateResult* red = FindGate(outcome, kRunNotAbortedGate);
  ASSERT_NE(red, nullptr);
  EXPECT_FALSE(red->passed);
  EXPECT_THAT(red->message, HasSubstr("by stop condition 'forced': forced: 1 > 0"));
  const gates::GateResult* latency = FindGate(outcome, kAbortStopLatencyGate);
  ASSERT_NE(latency, nullptr);
  EXPECT_TRUE(latency->passed) << latency->message;
  EXPECT_FALSE(latency->not_applicable);

  // The abort is on the chaos timeline, before the revert it caused.
  const std::vector<chaos::ChaosEvent> events = outcome.chaos.events();
  auto abort = std::find_if(events.begin(), events.end(), [](const auto& e) { return e.event == "abort"; });
  ASSERT_NE(abort, events.end());
  EXPECT_THAT(abort->detail, HasSubstr("stop condition 'forced': forced: 1 > 0"));
  auto revert = std::find_if(events.begin(), events.end(), [](const auto& e) { return e.event == "revert"; });
  ASSERT_NE(revert, events.end());
  EXPECT_LE(abort->seconds, revert->seconds);
  EXPECT_LT(revert->seconds, abort->seconds + 5);
}

TEST(AbortRun, AWatchWithoutABreachIsGreenAndTheLatencyGateNotApplicable) {
  internal::InProcessTarget target;
  ScenarioPlan plan = PlanOf(50, 1);
  plan.abort_monitor = [](const load::OpenModelRunner&) {
    return std::make_unique<TimedMonitor>(std::chrono::hours(1));
  };
  const ScenarioOutcome outcome = RunScenario(plan, target);
  EXPECT_FALSE(outcome.abort.has_value());
  const gates::GateResult* gate = FindGate(outcome, kRunNotAbortedGate);
  ASSERT_NE(gate, nullptr);
  EXPECT_TRUE(gate->passed);
  EXPECT_THAT(gate->message, HasSubstr("1 condition watched"));
  const gates::GateResult* latency = FindGate(outcome, kAbortStopLatencyGate);
  ASSERT_NE(latency, nullptr);
  EXPECT_TRUE(latency->not_applicable);
  EXPECT_TRUE(gates::AllPassed(outcome.gates)) << gates::FormatGateReport(outcome.gates);
}

TEST(AbortRun, WithoutAWatchThereAreNoAbortGates) {
  internal::InProcessTarget target;
  const ScenarioOutcome outcome = RunScenario(PlanOf(50, 1), target);
  EXPECT_EQ(FindGate(outcome, kRunNotAbortedGate), nullptr);
  EXPECT_EQ(FindGate(outcome, kAbortStopLatencyGate), nullptr);
}

TEST(AbortGates, RedWhenLoadWentOnPastTheBudgetGreenWithin) {
  AbortRecord slow{.condition = "resets", .reason = "resets: 0.2 > 0.05", .breach_seconds = 10,
                   .breach_unix_ms = 0, .stop_seen_seconds = 10.1, .last_request_seconds = 16.5,
                   .stop_latency_seconds = 6.5};
  std::vector<gates::GateResult> g = AbortGates(slow, {}, 5);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_FALSE(g[0].passed);
  EXPECT_FALSE(g[1].passed);
  EXPECT_THAT(g[1].message, HasSubstr("6.500 s after the breach"));
  AbortRecord quick = slow;
  quick.last_request_seconds = 10.2;
  quick.stop_latency_seconds = 0.2;
  g = AbortGates(quick, {}, 5);
  EXPECT_FALSE(g[0].passed);  // an aborted run is red whatever its latency
  EXPECT_TRUE(g[1].passed) << g[1].message;
  EXPECT_THAT(g[0].message, HasSubstr("load stopped 0.200 s after the breach (last request sent at t=10.20 s)"));
}

TEST(AbortGates, TheOperatorHaltIsNamedAsSuch) {
  AbortRecord halt{.condition = "operator-halt", .reason = "/run/halt exists", .breach_seconds = 3,
                   .breach_unix_ms = 0, .stop_seen_seconds = 3, .last_request_seconds = 2.9,
                   .stop_latency_seconds = 0};
  EXPECT_THAT(DescribeAbort(halt), HasSubstr("by the operator halt: /run/halt exists; no request was sent after"));
}

}  // namespace
}  // namespace aftershock::scenario
