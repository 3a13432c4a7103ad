// HtmlReporter: writes the HTML run report (html_report.h) of every scenario as `report.html` into
// its artifacts folder, and (re)writes the set's index `<artifacts root>/<set>/index.html` (the
// parent of the scenario's folder), which lists every scenario folder beside it that holds a
// report.html, with its verdict. It writes in OnVerdict, which ReportScenario calls for every run
// the fixture reports: green, red, aborted by the safety watch or interrupted.
//
// A folder's verdict on the index is JudgeRun (scenario_reporter.h) of its verdict.txt's FAIL lines,
// its failures.txt lines (a chaos error or an interruption turns a run red without a red gate) and
// gates.json's expected_red: RED-AS-EXPECTED when exactly the expected-red gates are red and
// nothing else is, PASS with no FAIL line and an empty failures.txt, FAIL otherwise; "?" without a
// verdict.txt. The scenario being reported uses its own
// report, so the index is right whatever order the sinks run in. The index is written under a lock
// (`<set>/.index.lock`, flock), so scenarios finishing together never drop each other from it.
//
//   HtmlReporter html;
//   ReportScenario({&files, &html}, {.set = "pr", .scenario = "primary-kill", .artifacts_dir = dir}, outcome);
#ifndef AFTERSHOCK_FRAMEWORK_REPORT_HTML_REPORTER_H_
#define AFTERSHOCK_FRAMEWORK_REPORT_HTML_REPORTER_H_

#include <string>
#include <vector>

#include "framework/report/html_report.h"
#include "framework/report/scenario_reporter.h"

namespace aftershock::report {

class HtmlReporter : public ScenarioReporter {
 public:
  void OnVerdict(const ScenarioInfo& info, const ScenarioReport& report) override;
};

// The index entries of `set_dir`: every sub-folder holding a report.html, sorted by name.
std::vector<IndexEntry> ScanSetFolder(const std::string& set_dir);

}  // namespace aftershock::report

#endif  // AFTERSHOCK_FRAMEWORK_REPORT_HTML_REPORTER_H_
