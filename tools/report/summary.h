// aftershock-report summary SET_DIR: the Markdown summary of one set's run for a CI step summary
// ($GITHUB_STEP_SUMMARY): the set's verdict table (one row per scenario, its red gates, a link to
// its report.html), every failing gate with its message and figures, the other reasons a scenario
// is red (chaos errors, an interruption, a seeded defect not caught: failures.txt lines that are no
// failed gate), and where the HTML reports are (the artifact's name and URL when given). A scenario
// whose gates.json names expected-red gates (a seeded defect) is "red as expected" when exactly
// those are red and nothing else (report::JudgeRun): not counted red, its gates marked "(expected red)".
//
//   aftershock-report summary build/artifacts/pr --artifact-name=artifacts-pr
//       --artifact-url="$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID"
//       >> "$GITHUB_STEP_SUMMARY"                                                    (one command line)
//
// A scenario is a sub-folder with a verdict.txt. Exit: 0 when the summary was written, red
// scenarios or not (ctest judges the run); 2 bad arguments or no scenario in SET_DIR.
#ifndef AFTERSHOCK_TOOLS_REPORT_SUMMARY_H_
#define AFTERSHOCK_TOOLS_REPORT_SUMMARY_H_

#include <ostream>
#include <string>
#include <vector>

namespace aftershock::report_tools {

struct SummaryOptions {
  std::string artifact_name;  // e.g. "artifacts-pr": the CI upload holding the folder
  std::string artifact_url;   // e.g. the run's page, where the upload is listed
};

// Writes the Markdown; returns the number of red scenarios, or -1 (message on `err`) when
// `set_dir` holds no scenario.
int WriteSetSummary(const std::string& set_dir, const SummaryOptions& options, std::ostream& out, std::ostream& err);

// `aftershock-report summary ...` (args after "summary").
int RunSummary(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace aftershock::report_tools

#endif  // AFTERSHOCK_TOOLS_REPORT_SUMMARY_H_
