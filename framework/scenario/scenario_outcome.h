// ScenarioOutcome: what one run of a scenario produced, for the reporters (framework/report) and the
// judge: the load and chaos timelines, the ledger and its verification, and every gate's result.
//
//   ScenarioOutcome outcome = RunScenario(plan, target);
//   for (const gates::GateResult& g : outcome.gates) std::cout << g.name << (g.passed ? " ok\n" : " red\n");
#ifndef AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_OUTCOME_H_
#define AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_OUTCOME_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/chaos/chaos_scheduler.h"
#include "framework/chaos/chaos_timeline.h"
#include "framework/gates/gates.h"
#include "framework/ledger/promise_ledger.h"
#include "framework/ledger/verifier.h"
#include "framework/load/open_model_runner.h"

namespace aftershock::scenario {

// A run stopped by its safety watch (ScenarioPlan::abort_monitor). Times are run seconds (the
// timelines' clock); -1 when there is none.
struct AbortRecord {
  std::string condition;  // AbortRequest::condition
  std::string reason;     // AbortRequest::reason
  double breach_seconds = 0;
  std::int64_t breach_unix_ms = 0;
  double stop_seen_seconds = -1;     // when the dispatcher stopped
  double last_request_seconds = -1;  // the last request actually sent (load::RunResult::last_sent_ns)
  // last_request_seconds - breach_seconds, at least 0: how long load went on after the breach.
  double stop_latency_seconds = 0;
};

// A curve a suite computed from the run, for the report sinks to draw beside the timelines (the HTML
// page plots it and lists its points): e.g. the breakpoint's goodput against the offered rate of each
// step (suites/banking). Its x axis is whatever the suite says, not the run's seconds.
struct OutcomeCurve {
  std::string name;     // an id, file- and DOM-safe: "breakpoint-goodput"
  std::string title;    // "goodput against offered rate (breakpoint steps)"
  std::string x_label;  // "offered calls/s"
  std::string y_label;  // "goodput calls/s"
  std::vector<std::pair<double, double>> points;  // (x, y), in the order to join them
  bool identity_line = false;  // also draw y = x (e.g. goodput equal to the offered rate)
  // Labelled x positions: {200, "last step held"}, {250, "first step failed"}.
  std::vector<std::pair<double, std::string>> x_marks;
};

struct ScenarioOutcome {
  load::RunResult load;
  chaos::ChaosTimeline chaos;
  std::vector<std::string> chaos_errors;
  std::vector<chaos::ConfirmationRecord> confirmations;  // each fault round's proof (fault-took-effect)
  std::vector<chaos::SkippedRound> skipped_rounds;       // planned rounds that did not happen (same gate)
  std::unique_ptr<ledger::PromiseLedger> ledger;
  std::optional<ledger::VerificationReport> verification;  // empty when the target makes no promises
  // The built-in gates, then "target-converged" when the target checks convergence, then a suite's
  // own gates (fixtures' JudgeOptions::suite_gates) once the fixture has added them.
  std::vector<gates::GateResult> gates;
  bool interrupted = false;          // stopped early by ScenarioPlan::stop_requested (SIGINT), not by an abort
  std::optional<AbortRecord> abort;  // stopped by the safety watch
  std::vector<std::string> abort_notes;  // AbortMonitor::Notes() at the end of the load
  std::string ledger_error;  // writing the ledger file failed (the run's promises are not all on disk)
  std::vector<OutcomeCurve> curves;  // a suite's own (fixtures' JudgeOptions::suite_curves), for the sinks
};

}  // namespace aftershock::scenario

#endif  // AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_OUTCOME_H_
