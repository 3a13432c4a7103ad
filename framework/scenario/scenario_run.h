// RunScenario: one resilience scenario, as data flows in DESIGN.md, without any gtest in it.
//
// Checks the in-flight ceiling before anything starts, runs the open-model load and the chaos plan on
// one clock, settles (a quiet period, then the target's convergence check), replays the ledger, and
// evaluates every gate. The gtest fixture (fixtures/resilience_scenario.h) wraps this with the
// installed reporters (framework/report) and the assertions; integration tests call it directly to
// assert on the figures.
//
//   ScenarioPlan plan{.config = config, .faults = {{.at = 4s, .duration = 2s, .fault = stall}}};
//   ScenarioOutcome outcome = RunScenario(plan, target);
//   EXPECT_TRUE(gates::AllPassed(outcome.gates));
#ifndef AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_RUN_H_
#define AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_RUN_H_

#include <string>

#include "framework/load/open_model_runner.h"
#include "framework/scenario/scenario_outcome.h"
#include "framework/scenario/scenario_plan.h"
#include "framework/scenario/scenario_target.h"

namespace aftershock::scenario {

// Throws ScenarioSetupError when the run cannot start; everything after the start is in the outcome.
ScenarioOutcome RunScenario(const ScenarioPlan& plan, ScenarioTarget& target);

// The progress line's text, e.g. "t=12/30s offered=2400 ok=2390 failed=10 shed=0 in_flight=3".
std::string FormatProgress(const std::string& scenario, const load::RunnerProgress& p);

}  // namespace aftershock::scenario

#endif  // AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_RUN_H_
