// aftershock-report compare A B: two runs' artifact folders side by side (e.g. this pull request's
// and the last weekly run's), every gate figure with its delta, regressions beyond a tolerance flagged.
//
// A run is an artifacts root (<root>/<set>/<scenario>/), a set folder or one scenario folder: every
// folder under it (three levels at most) holding gates.json or verdict.txt is a scenario, keyed by
// its path below the root ("pr/primary-kill"). Per scenario it reads gates.json (each gate's result
// and figures; verdict.txt's results when there is no gates.json) and the "total" row of
// stage-report.json (requests, failed, shed, success_ratio, p50/p99/max latency).
//
// A figure's direction comes from its name (docs/report.md): budgets and positions (max_*, *objective*,
// *budget*, *first_second, *start_ms, offered_rate, requests) are shown, never flagged; *ratio*,
// achieved_rate, throughput, *confirmed*, *checked*, *acknowledged* and ok are better higher; every
// other figure (seconds, ms, lost, changed, failed, shed, lag, ...) is better lower, and for a
// time_to_recover figure -1 ("did not recover") is the worst value. A regression is a change in the
// bad direction by more than max(tolerance * |A|, abs_tolerance), a gate that went from PASS or N/A
// to FAIL, or a gate or scenario of A missing in B.
//
//   aftershock-report compare build/artifacts-main build/artifacts [--tolerance=10%] [--abs-tolerance=0]
//       [--format=text|markdown|html] [--fail-on-regression] [--output=FILE]
//
// Exit: 0; 1 when --fail-on-regression and a regression was flagged; 2 bad arguments, or a folder
// with no scenario in it.
#ifndef AFTERSHOCK_TOOLS_REPORT_COMPARE_H_
#define AFTERSHOCK_TOOLS_REPORT_COMPARE_H_

#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace aftershock::report_tools {

// Which way a figure is better, as the gate that made it declared it (gates.json "directions";
// gates::FigureDirection). Never guessed from a name: an undeclared figure is kNeutral, shown and
// never a regression.
enum class Direction { kNeutral, kHigherIsBetter, kLowerIsBetter };

struct GateFigures {
  std::string result;  // "PASS", "FAIL", "N/A"
  std::vector<std::pair<std::string, double>> figures;
  std::string message;  // the gate's figure and budget, as in verdict.txt
  std::map<std::string, Direction> directions{};  // declared ones only
};

// One scenario of one run: gate name -> result and figures, in gates.json order.
struct ScenarioFigures {
  std::vector<std::pair<std::string, GateFigures>> gates;
  std::set<std::string> expected_red{};  // gates.json's: the gates a seeded defect must turn red
};

// Scenario key ("pr/primary-kill") -> figures. Throws std::runtime_error naming the file for a
// gates.json or stage-report.json that does not parse.
std::map<std::string, ScenarioFigures> LoadRun(const std::string& dir);

// The direction `figure` was declared with in B's gate, else in A's; kNeutral when neither declared one.
Direction DeclaredDirection(const std::string& figure, const GateFigures* a, const GateFigures* b);

struct CompareOptions {
  double tolerance = 0.10;  // relative to |A|
  double abs_tolerance = 0;
};

struct CompareRow {
  std::string scenario;
  std::string gate;
  std::string figure;  // "result" for the gate's result
  std::optional<double> a, b;
  std::string a_text, b_text;  // the result words, or the numbers as printed
  std::string flag;            // "" | "regression" | "improved" | "missing in B" | "new in B"
  bool regression = false;
};

std::vector<CompareRow> Compare(const std::map<std::string, ScenarioFigures>& a,
                                const std::map<std::string, ScenarioFigures>& b, const CompareOptions& options);

void WriteCompareText(const std::vector<CompareRow>& rows, const CompareOptions& options, std::ostream& out);
void WriteCompareMarkdown(const std::vector<CompareRow>& rows, const CompareOptions& options, std::ostream& out);
void WriteCompareHtml(const std::vector<CompareRow>& rows, const CompareOptions& options, std::ostream& out);

// `aftershock-report <command> ...` (without the program name). Returns the exit code.
int RunReportCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace aftershock::report_tools

#endif  // AFTERSHOCK_TOOLS_REPORT_COMPARE_H_
