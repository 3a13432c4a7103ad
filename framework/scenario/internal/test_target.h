// InProcessTarget: a scenario target with no service behind it, for the scenario and report tests.
// Every call succeeds at once on the dispatcher thread; it makes no promises; its convergence check
// is scripted.
//
//   InProcessTarget target;
//   target.convergence = [](int check) { return Convergence{.converged = check >= 3}; };
//   ScenarioOutcome outcome = RunScenario(plan, target);
//   const gates::GateResult* gate = FindGate(outcome, kRunNotAbortedGate);   // nullptr when absent
#ifndef AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_TEST_TARGET_H_
#define AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_TEST_TARGET_H_

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "framework/scenario/scenario_outcome.h"
#include "framework/scenario/scenario_target.h"

namespace aftershock::scenario::internal {

class InstantWorkload : public load::Workload {
 public:
  std::unique_ptr<load::CallState> NewCall(std::uint64_t) override { return std::make_unique<load::CallState>(); }
  void Issue(load::CallState&, const load::Attempt&, load::AttemptDone done) override { done(kCodeOk); }
  // Never fails, so nothing is ever retried; declared, as the default policy requires (load/workload.h).
  load::Idempotency CallIdempotency() const override { return load::Idempotency::kIdempotent; }
};

class InProcessTarget : public ScenarioTarget {
 public:
  // Called with the 1-based number of the check; empty: the target has no convergence check.
  std::function<Convergence(int check)> convergence;
  int checks = 0;

  std::unique_ptr<load::Workload> MakeWorkload(ledger::PromiseLedger&, const RunClock&) override {
    return std::make_unique<InstantWorkload>();
  }
  std::unique_ptr<ledger::PromiseVerifier> MakeVerifier() override { return nullptr; }
  bool MakesNoPromises() const override { return true; }
  std::optional<Convergence> CheckConverged() override {
    if (!convergence) return std::nullopt;
    return convergence(++checks);
  }
};

// The gate of that name in the outcome, or nullptr.
inline const gates::GateResult* FindGate(const ScenarioOutcome& outcome, std::string_view name) {
  auto it = std::find_if(outcome.gates.begin(), outcome.gates.end(), [&](const auto& g) { return g.name == name; });
  return it == outcome.gates.end() ? nullptr : &*it;
}

}  // namespace aftershock::scenario::internal

#endif  // AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_TEST_TARGET_H_
