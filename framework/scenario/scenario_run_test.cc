// RunScenario over an in-process target: the settle phase's convergence check and the gate it makes.
#include "framework/scenario/scenario_run.h"

#include <algorithm>

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

}  // namespace
}  // namespace aftershock::scenario
