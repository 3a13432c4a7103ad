// ScenarioOutcome: what one run of a scenario produced, for the reporters (framework/report) and the
// judge: the load and chaos timelines, the ledger and its verification, and every gate's result.
//
//   ScenarioOutcome outcome = RunScenario(plan, target);
//   for (const gates::GateResult& g : outcome.gates) std::cout << g.name << (g.passed ? " ok\n" : " red\n");
#ifndef AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_OUTCOME_H_
#define AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_OUTCOME_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/chaos/chaos_scheduler.h"
#include "framework/chaos/chaos_timeline.h"
#include "framework/gates/gates.h"
#include "framework/ledger/promise_ledger.h"
#include "framework/ledger/verifier.h"
#include "framework/load/open_model_runner.h"

namespace aftershock::scenario {

struct ScenarioOutcome {
  load::RunResult load;
  chaos::ChaosTimeline chaos;
  std::vector<std::string> chaos_errors;
  std::vector<chaos::ConfirmationRecord> confirmations;  // each fault round's proof (fault-took-effect)
  std::unique_ptr<ledger::PromiseLedger> ledger;
  std::optional<ledger::VerificationReport> verification;  // empty when the target makes no promises
  // The built-in gates, then "target-converged" when the target checks convergence, then a suite's
  // own gates (fixtures' JudgeOptions::suite_gates) once the fixture has added them.
  std::vector<gates::GateResult> gates;
  bool interrupted = false;
  std::string ledger_error;  // writing the ledger file failed (the run's promises are not all on disk)
};

}  // namespace aftershock::scenario

#endif  // AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_OUTCOME_H_
