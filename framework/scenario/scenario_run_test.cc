// RunScenario over an in-process target: the settle phase's convergence check and the gate it makes.
#include "framework/scenario/scenario_run.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "framework/scenario/internal/test_scenario_config.h"
#include "framework/scenario/internal/test_target.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::scenario {
namespace {

using ::testing::HasSubstr;
using internal::FindGate;

ScenarioPlan ShortPlan(double converge_timeout_seconds) {
  ScenarioPlan plan;
  plan.config = internal::TestScenarioConfig(50, 1, 1);
  plan.config.settle_seconds = 0;
  plan.config.converge_timeout_seconds = converge_timeout_seconds;
  plan.progress_seconds = 0;
  return plan;
}

TEST(RunScenario, ATargetThatNeverConvergesTurnsTargetConvergedRedAndKeepsItsTimelines) {
  internal::InProcessTarget target;
  target.convergence = [](int) { return Convergence{.converged = false, .detail = "leader election pending"}; };
  const ScenarioOutcome outcome = RunScenario(ShortPlan(0.3), target);
  const gates::GateResult* gate = FindGate(outcome, "target-converged");
  ASSERT_NE(gate, nullptr);
  EXPECT_FALSE(gate->passed);
  EXPECT_THAT(gate->message, HasSubstr("not converged within 0.3 s"));
  EXPECT_THAT(gate->message, HasSubstr("leader election pending"));
  EXPECT_FALSE(gates::AllPassed(outcome.gates));
  // The run itself is whole: the timeline is there for the reporters, the other gates judged.
  EXPECT_GE(outcome.load.timeline.size(), 1u);
  EXPECT_GT(outcome.load.ok, 0u);
  EXPECT_FALSE(outcome.interrupted);
  EXPECT_NE(FindGate(outcome, "p1-longest-outage"), nullptr);
}

TEST(RunScenario, ATargetThatConvergesIsGreen) {
  internal::InProcessTarget target;
  target.convergence = [](int check) { return Convergence{.converged = check >= 2, .detail = {}}; };
  const ScenarioOutcome outcome = RunScenario(ShortPlan(30), target);
  const gates::GateResult* gate = FindGate(outcome, "target-converged");
  ASSERT_NE(gate, nullptr);
  EXPECT_TRUE(gate->passed) << gate->message;
  EXPECT_EQ(target.checks, 2);
  EXPECT_TRUE(gates::AllPassed(outcome.gates)) << gates::FormatGateReport(outcome.gates);
}

TEST(RunScenario, ATargetWithoutAConvergenceCheckHasNoSuchGate) {
  internal::InProcessTarget target;
  const ScenarioOutcome outcome = RunScenario(ShortPlan(30), target);
  EXPECT_EQ(FindGate(outcome, "target-converged"), nullptr);
  EXPECT_TRUE(gates::AllPassed(outcome.gates)) << gates::FormatGateReport(outcome.gates);
}

// A fault that confirms at once (its revert too).
std::shared_ptr<chaos::LambdaFault> ConfirmingFault(std::string name, std::function<void()> apply = [] {}) {
  chaos::LambdaFault::Callables c;
  c.apply = std::move(apply);
  c.revert = [] {};
  c.confirm_applied = [](Clock::time_point) { return chaos::Confirmation::Confirmed("seen"); };
  c.confirm_reverted = [](Clock::time_point) { return chaos::Confirmation::Confirmed("gone"); };
  return std::make_shared<chaos::LambdaFault>(std::move(name), "", std::move(c));
}

// The supervisor reverts a fault whose lease ran out: the run must not be judged as if the fault
// had lasted its whole planned length.
TEST(RunScenario, AFaultLeaseThatExpiresMidRunTurnsFaultLeaseHeldRed) {
  internal::InProcessTarget target;
  auto expiries = std::make_shared<std::atomic<int>>(4);
  ScenarioPlan plan = ShortPlan(30);
  // Applying the fault stands for the supervisor expiring the lease while it is in force.
  plan.faults = {{.at = std::chrono::milliseconds(200), .duration = std::chrono::milliseconds(300),
                  .fault = ConfirmingFault("partition", [expiries] { ++*expiries; })}};
  plan.fault_leases = {{.lease = "cluster supervisor", .read = [expiries] {
                          return FaultLeaseReading{.expiries = static_cast<std::uint64_t>(expiries->load()),
                                                   .last_expiry_unix_ms = 0,
                                                   .last_expiry = "fault lease of 'probe' not renewed; reverted "
                                                                  "database link faults"};
                        }}};
  const ScenarioOutcome outcome = RunScenario(plan, target);
  const gates::GateResult* gate = FindGate(outcome, "fault-lease-held");
  ASSERT_NE(gate, nullptr);
  EXPECT_FALSE(gate->passed);
  EXPECT_THAT(gate->message, HasSubstr("cluster supervisor's fault lease expired 1 time(s) during the run"));
  EXPECT_THAT(gate->message, HasSubstr("reverted database link faults"));
}

TEST(RunScenario, AFaultLeaseThatHeldIsGreenAndNoLeaseIsNotApplicable) {
  internal::InProcessTarget target;
  ScenarioPlan plan = ShortPlan(30);
  plan.faults = {{.at = std::chrono::milliseconds(200), .duration = std::chrono::milliseconds(300),
                  .fault = ConfirmingFault("partition"), .measure_recovery = false}};
  plan.fault_leases = {{.lease = "cluster supervisor", .read = [] { return FaultLeaseReading{.expiries = 7}; }}};
  const ScenarioOutcome held = RunScenario(plan, target);
  EXPECT_TRUE(gates::AllPassed(held.gates)) << gates::FormatGateReport(held.gates);
  EXPECT_EQ(FindGate(held, "fault-lease-held")->message, "held throughout: cluster supervisor");
  plan.fault_leases.clear();
  const ScenarioOutcome none = RunScenario(plan, target);
  EXPECT_TRUE(FindGate(none, "fault-lease-held")->not_applicable);
}

// A plan cut short by the scheduler's timeout: the round that never came is named, next to a
// confirmed one (fault-took-effect used to be green when any round confirmed).
TEST(RunScenario, ARoundTheSchedulerNeverReachedTurnsFaultTookEffectRedBesideAConfirmedOne) {
  internal::InProcessTarget target;
  ScenarioPlan plan = ShortPlan(30);
  plan.config.timeout_seconds = 0;  // Finish waits load_seconds + timeout_seconds = 1 s for the plan
  // The first fault's health gate holds the plan past Finish's deadline (~2 s from the start).
  plan.faults = {{.at = std::chrono::milliseconds(100), .fault = ConfirmingFault("kill"),
                  .gate = [] { std::this_thread::sleep_for(std::chrono::milliseconds(2500)); }},
                 {.at = std::chrono::milliseconds(300), .fault = ConfirmingFault("second-kill")}};
  const ScenarioOutcome outcome = RunScenario(plan, target);
  const gates::GateResult* gate = FindGate(outcome, "fault-took-effect");
  ASSERT_NE(gate, nullptr);
  EXPECT_FALSE(gate->passed) << gate->message;
  EXPECT_THAT(gate->message, HasSubstr("second-kill round 1: did not happen: the scheduler stopped before it (the "
                                       "plan had not ended 1 s after the load: Finish's timeout)"));
  EXPECT_THAT(gate->message, HasSubstr("1 rounds confirmed, 0 not, 1 skipped"));
  EXPECT_GE(outcome.confirmations.size(), 1u);
}

// The ScenarioSetupError a plan is refused with before its load ("" when it ran).
std::string SetupErrorOf(const ScenarioPlan& plan) {
  internal::InProcessTarget target;
  try {
    RunScenario(plan, target);
  } catch (const ScenarioSetupError& e) {
    return e.what();
  }
  return "";
}

TEST(RunScenario, AnEmptyPlanInAScenarioThatRequiresFaultsIsASetupError) {
  ScenarioPlan plan = ShortPlan(30);
  plan.faults_required = true;
  EXPECT_THAT(SetupErrorOf(plan), HasSubstr("injects faults, but its plan has none"));
}

TEST(RunScenario, AFaultDueAfterTheLoadOrAnEmptyRepeatWindowIsASetupError) {
  ScenarioPlan plan = ShortPlan(30);
  plan.faults = {{.at = std::chrono::milliseconds(1000), .fault = ConfirmingFault("late-kill")}};
  EXPECT_THAT(SetupErrorOf(plan), HasSubstr("fault 'late-kill' starts at 1 s, when the load (1 s) has ended"));
  plan.faults = {{.at = std::chrono::milliseconds(500), .fault = ConfirmingFault("kill"),
                  .repeat_pause = std::chrono::milliseconds(100), .repeat_until = std::chrono::milliseconds(400)}};
  EXPECT_THAT(SetupErrorOf(plan), HasSubstr("the window is empty, not one round fits"));
}

}  // namespace
}  // namespace aftershock::scenario
