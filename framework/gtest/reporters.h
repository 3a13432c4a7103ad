// The scenario reporters of a suite binary: main installs the default sinks (stdout markers and
// verdict, the artifacts folder, the HTML report, JUnit properties through
// testing::Test::RecordProperty, and the CI step summary when GITHUB_STEP_SUMMARY names a file), as
// Google Benchmark's main installs its reporters; the ResilienceScenario fixture hands every run to InstalledReporters().
//
// A suite adds a sink of its own (e.g. one that posts the verdict somewhere) before its scenarios run,
// from a global test environment or SetUpTestSuite:
//   AddScenarioReporter(std::make_unique<MyReporter>());
#ifndef AFTERSHOCK_FRAMEWORK_GTEST_REPORTERS_H_
#define AFTERSHOCK_FRAMEWORK_GTEST_REPORTERS_H_

#include <memory>
#include <string>
#include <vector>

#include "framework/report/scenario_reporter.h"

namespace aftershock::gtest_integration {

// The default sinks, in the order they are called: stdout, artifacts, the HTML report (report.html
// and the set's index.html), JUnit properties, and the step summary when `step_summary_path` is not
// empty.
std::vector<std::unique_ptr<report::ScenarioReporter>> DefaultScenarioReporters(const std::string& step_summary_path);

// The installed sinks, in order; empty when nothing is installed (the binary does not use
// aftershock_gtest_main): the fixture then fails the scenario rather than report into nowhere.
std::vector<report::ScenarioReporter*> InstalledReporters();

// Appends a sink to the installed ones (process-wide, like the GoogleTest listeners it sits beside).
void AddScenarioReporter(std::unique_ptr<report::ScenarioReporter> reporter);

// Installs `reporters` for the lifetime of this object (main does this; tests may too), replacing
// what was installed; restores the previous set on destruction.
class ScopedScenarioReporters {
 public:
  explicit ScopedScenarioReporters(std::vector<std::unique_ptr<report::ScenarioReporter>> reporters);
  ~ScopedScenarioReporters();
  ScopedScenarioReporters(const ScopedScenarioReporters&) = delete;
  ScopedScenarioReporters& operator=(const ScopedScenarioReporters&) = delete;

 private:
  std::vector<std::unique_ptr<report::ScenarioReporter>> previous_;
};

}  // namespace aftershock::gtest_integration

#endif  // AFTERSHOCK_FRAMEWORK_GTEST_REPORTERS_H_
