// aftershock-report history: one figure across many runs (e.g. the longest outage of primary-kill
// over the last weekly runs), as a text table and optionally a standalone SVG plot.
//
// Each DIR is one run's artifacts folder, read like compare's (compare.h: gates.json, the "total"
// row of stage-report.json as the gate "stage total"), in the order given (oldest first). The
// figure is named `<gate>.<figure>` (p1-longest-outage.longest_outage_seconds, stage total.p99_ms)
// or by its figure name alone when one gate has it. One column per scenario that has the figure in
// any run (or only --scenario=KEY); "-" where a run lacks it.
//
//   aftershock-report history --figure=p1-longest-outage.longest_outage_seconds
//       --scenario=weekly/primary-kill [--svg=outage.svg] runs/*/artifacts     (one command line)
//
// Exit: 0; 1 when no run has the figure; 2 bad arguments or an unreadable folder.
#ifndef AFTERSHOCK_TOOLS_REPORT_HISTORY_H_
#define AFTERSHOCK_TOOLS_REPORT_HISTORY_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tools/report/compare.h"

namespace aftershock::report_tools {

struct History {
  std::string gate, figure;
  std::vector<std::string> runs;       // the folders, in order
  std::vector<std::string> scenarios;  // columns
  std::vector<std::vector<std::optional<double>>> values;  // [run][scenario]
};

// `figure` is "<gate>.<figure>" or a bare figure name; `scenario` empty for every scenario.
History CollectHistory(const std::vector<std::map<std::string, ScenarioFigures>>& runs,
                       const std::vector<std::string>& run_names, const std::string& figure,
                       const std::string& scenario);

void WriteHistoryText(const History& h, std::ostream& out);
// A standalone SVG file (with its xmlns): one line per scenario, x = the run's position.
std::string HistorySvg(const History& h);

// `aftershock-report history ...` (args after "history").
int RunHistory(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace aftershock::report_tools

#endif  // AFTERSHOCK_TOOLS_REPORT_HISTORY_H_
