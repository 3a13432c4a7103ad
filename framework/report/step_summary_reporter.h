// StepSummaryReporter: the stage report as a CI step summary (GitHub Actions' GITHUB_STEP_SUMMARY
// file), appended per scenario as "### <set> / <scenario>", a blank line, the Markdown stage report and
// a blank line. The suite's main installs it only when GITHUB_STEP_SUMMARY names a file.
//
//   StepSummaryReporter summary(std::getenv("GITHUB_STEP_SUMMARY"));
#ifndef AFTERSHOCK_FRAMEWORK_REPORT_STEP_SUMMARY_REPORTER_H_
#define AFTERSHOCK_FRAMEWORK_REPORT_STEP_SUMMARY_REPORTER_H_

#include <string>

#include "framework/report/scenario_reporter.h"

namespace aftershock::report {

class StepSummaryReporter : public ScenarioReporter {
 public:
  explicit StepSummaryReporter(std::string path) : path_(std::move(path)) {}
  void OnVerdict(const ScenarioInfo& info, const ScenarioReport& report) override;

 private:
  std::string path_;
};

}  // namespace aftershock::report

#endif  // AFTERSHOCK_FRAMEWORK_REPORT_STEP_SUMMARY_REPORTER_H_
