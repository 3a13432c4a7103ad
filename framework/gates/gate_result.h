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

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aftershock::gates {

// Which way a figure is better. Declared by the gate that makes the figure (GateResult::Declare) and
// written to gates.json beside it, so `aftershock-report compare` reads it and never guesses from a
// figure's name (it got verification_undecided_ratio and downstream_max_ratio backwards). A figure
// without a declared direction is compared as kNeither: shown, never a regression.
enum class FigureDirection { kLowerIsBetter, kHigherIsBetter, kNeither };
// "lower", "higher", "neither" (gates.json), and back (nullopt for anything else).
std::string_view DirectionName(FigureDirection direction);

struct GateResult {
  std::string name;
  bool passed = false;
  std::string message;
  std::vector<std::pair<std::string, double>> figures;  // snake_case name -> value, for JUnit properties
  bool not_applicable = false;  // nothing to check: reported "N/A", never PASS; `passed` stays true
  // Which way each figure is better, by figure name (see FigureDirection); figures made per round
  // or per fault declare each name they make.
  std::map<std::string, FigureDirection> directions{};

  // Declares directions: r.Declare(FigureDirection::kLowerIsBetter, {"unavailable_seconds"}).
  GateResult& Declare(FigureDirection direction, std::initializer_list<std::string> figure_names) {
    for (const std::string& name : figure_names) directions[name] = direction;
    return *this;
  }
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
