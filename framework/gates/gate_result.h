// GateResult: one gate's verdict, and the report functions that treat every gate alike, built-in or
// added by a suite. A gate is green (PASS), red (FAIL), or "not applicable" (N/A: it had nothing to
// check, e.g. P2 for a target that makes no promises). N/A is never reported as PASS, and it never
// turns a run red: `passed` stays true.
//
//   std::vector<GateResult> results = EvaluateGates(inputs);
//   results.push_back(NotApplicable("alert-fired", "the scenario has no alert rule"));
//   std::cout << FormatGateReport(results);  // "PASS traffic-served: ...", "N/A alert-fired: ..."
//   for (const std::string& line : FailureReasons(results)) failures << line << "\n";  // FAILs only
#ifndef AFTERSHOCK_FRAMEWORK_GATES_GATE_RESULT_H_
#define AFTERSHOCK_FRAMEWORK_GATES_GATE_RESULT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aftershock::gates {

struct GateResult {
  std::string name;
  bool passed = false;
  std::string message;
  std::vector<std::pair<std::string, double>> figures;  // snake_case name -> value, for JUnit properties
  bool not_applicable = false;  // nothing to check: reported "N/A", never PASS; `passed` stays true
};

// A gate with nothing to check: passed, not_applicable, the reason as its message.
GateResult NotApplicable(std::string name, std::string reason,
                         std::vector<std::pair<std::string, double>> figures = {});

// "PASS", "FAIL" or "N/A" (the report's word for the result).
std::string_view StatusWord(const GateResult& result);
// "pass", "fail" or "not-applicable" (the JUnit property gate_<name>).
std::string_view StatusProperty(const GateResult& result);

// True when no gate failed (a gate that is not applicable has not failed).
bool AllPassed(const std::vector<GateResult>& results);
// One line per gate, "PASS <name>: <message>", "FAIL <name>: ..." or "N/A <name>: ...", each ending in '\n'.
std::string FormatGateReport(const std::vector<GateResult>& results);
// One line per failed gate, "<name>: <message>" (for failures.txt); empty when none failed.
std::vector<std::string> FailureReasons(const std::vector<GateResult>& results);

// Appends `more` to `results`; throws std::invalid_argument naming the gate when a name is empty or
// already present (two gates of one name would make the verdict ambiguous).
void AppendGateResults(std::vector<GateResult>& results, std::vector<GateResult> more);

}  // namespace aftershock::gates

#endif  // AFTERSHOCK_FRAMEWORK_GATES_GATE_RESULT_H_
