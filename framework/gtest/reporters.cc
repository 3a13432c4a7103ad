#include "framework/gtest/reporters.h"

#include <mutex>
#include <utility>

#include "framework/report/artifacts_reporter.h"
#include "framework/report/html_reporter.h"
#include "framework/report/junit_properties_reporter.h"
#include "framework/report/stdout_reporter.h"
#include "framework/report/step_summary_reporter.h"
#include "gtest/gtest.h"

namespace aftershock::gtest_integration {
namespace {

// Process-wide for the same reason as CurrentScenarioOutput(): scenarios are gtest cases that main
// cannot hand an object to.
std::mutex& Mutex() {
  static std::mutex mu;
  return mu;
}
std::vector<std::unique_ptr<report::ScenarioReporter>>& Installed() {
  static std::vector<std::unique_ptr<report::ScenarioReporter>> reporters;
  return reporters;
}

}  // namespace

std::vector<std::unique_ptr<report::ScenarioReporter>> DefaultScenarioReporters(const std::string& step_summary_path) {
  std::vector<std::unique_ptr<report::ScenarioReporter>> sinks;
  sinks.push_back(std::make_unique<report::StdoutReporter>());
  sinks.push_back(std::make_unique<report::ArtifactsReporter>());
  sinks.push_back(std::make_unique<report::HtmlReporter>());
  sinks.push_back(std::make_unique<report::JunitPropertiesReporter>(
      [](const std::string& name, const std::string& value) { testing::Test::RecordProperty(name, value); }));
  if (!step_summary_path.empty()) sinks.push_back(std::make_unique<report::StepSummaryReporter>(step_summary_path));
  return sinks;
}

std::vector<report::ScenarioReporter*> InstalledReporters() {
  std::lock_guard<std::mutex> lock(Mutex());
  std::vector<report::ScenarioReporter*> out;
  for (const auto& r : Installed()) out.push_back(r.get());
  return out;
}

void AddScenarioReporter(std::unique_ptr<report::ScenarioReporter> reporter) {
  std::lock_guard<std::mutex> lock(Mutex());
  Installed().push_back(std::move(reporter));
}

ScopedScenarioReporters::ScopedScenarioReporters(std::vector<std::unique_ptr<report::ScenarioReporter>> reporters) {
  std::lock_guard<std::mutex> lock(Mutex());
  previous_ = std::exchange(Installed(), std::move(reporters));
}

ScopedScenarioReporters::~ScopedScenarioReporters() {
  std::lock_guard<std::mutex> lock(Mutex());
  Installed() = std::move(previous_);
}

}  // namespace aftershock::gtest_integration
