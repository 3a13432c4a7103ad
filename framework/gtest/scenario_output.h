// ScenarioOutput: how a scenario hands its timelines to the output, so they get out before any
// assertion, and still get out when the scenario fails early or is interrupted.
//
// Each timeline is printed to stdout between one-line markers (then flushed) and written to the
// scenario's artifacts folder:
//   ##aftershock BEGIN load-timeline.csv set=pr scenario=primary-kill
//   <the CSV>
//   ##aftershock END load-timeline.csv rows=42
//   -> <artifacts_dir>/pr/primary-kill/load-timeline.csv
//
// The ResilienceScenario fixture reports through the installed ScenarioReporters (reporters.h),
// which print the same markers (framework/report/markers.h); ScenarioOutput is for a test that
// emits timelines of its own outside RunAndJudge.
//
// Usage in a scenario (main owns the one ScenarioOutput; TimelineListener calls End() after each
// test, so a scenario that fails or aborts before Emit() still gets its timelines out):
//   ScenarioOutput& out = CurrentScenarioOutput();
//   out.Begin(CurrentFlags().set, "primary-kill");
//   out.AddTimeline("load-timeline.csv", [&](std::ostream& os) { return recorder.WriteCsv(os); });
//   ... run load and faults ...
//   out.Emit();          // timelines first,
//   EXPECT_GE(...);      // then judge.
#ifndef AFTERSHOCK_FRAMEWORK_GTEST_SCENARIO_OUTPUT_H_
#define AFTERSHOCK_FRAMEWORK_GTEST_SCENARIO_OUTPUT_H_

#include <cstddef>
#include <functional>
#include <iostream>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "framework/report/scenario_reporter.h"
#include "gtest/gtest.h"

namespace aftershock::gtest_integration {

// The set name used when a scenario runs outside any set (e.g. from the IDE without --aftershock_set).
inline constexpr std::string_view kAdHocSetName = report::kAdHocSetName;

class ScenarioOutput {
 public:
  // Writes the CSV (header included) and returns the number of data rows.
  using CsvWriter = std::function<std::size_t(std::ostream&)>;

  explicit ScenarioOutput(std::string artifacts_dir);
  ScenarioOutput(const ScenarioOutput&) = delete;
  ScenarioOutput& operator=(const ScenarioOutput&) = delete;

  // Starts a scenario. An empty set means kAdHocSetName. Both names must be one plain word
  // (letters, digits, '.', '_', '-'): they go into markers and paths; throws std::invalid_argument.
  // A scenario still open is ended (emitted) first.
  void Begin(std::string set, std::string scenario);

  // Registers a timeline of the current scenario; `write_csv` is called once, at emission.
  // Throws std::logic_error outside Begin()/End(), std::invalid_argument for a bad file name.
  void AddTimeline(std::string file_name, CsvWriter write_csv);

  // Prints every timeline not printed yet, in registration order, and writes its artifact file.
  // A second call prints nothing (a timeline added after the first call is printed by the next).
  // A failing write_csv or artifact write is reported on stderr and does not stop the others.
  void Emit(std::ostream& out = std::cout);

  // Emit() if anything is pending, then forgets the scenario.
  void End(std::ostream& out = std::cout);

  // "<artifacts_dir>/<set>/<scenario>" of the current scenario.
  std::string ArtifactsDirFor() const;

  const std::string& artifacts_dir() const { return artifacts_dir_; }
  bool in_scenario() const;

 private:
  struct Timeline {
    std::string file_name;
    CsvWriter write_csv;
    bool emitted = false;
  };

  std::string ArtifactsDirForLocked() const;

  const std::string artifacts_dir_;
  mutable std::mutex mu_;
  bool in_scenario_ = false;
  std::string set_;
  std::string scenario_;
  std::vector<Timeline> timelines_;
};

// The process's ScenarioOutput. This is the one piece of process-wide state of the integration:
// GoogleTest listeners are process-wide and scenarios are gtest cases that main cannot hand an
// object to, so both reach main's instance through here. Aborts with a message if none is
// installed (the binary was not linked with aftershock_gtest_main).
ScenarioOutput& CurrentScenarioOutput();

// Installs `output` as CurrentScenarioOutput() for the lifetime of this object (main does this;
// tests may too). Restores the previous installation on destruction.
class ScopedCurrentScenarioOutput {
 public:
  explicit ScopedCurrentScenarioOutput(ScenarioOutput& output);
  ~ScopedCurrentScenarioOutput();
  ScopedCurrentScenarioOutput(const ScopedCurrentScenarioOutput&) = delete;
  ScopedCurrentScenarioOutput& operator=(const ScopedCurrentScenarioOutput&) = delete;

 private:
  ScenarioOutput* previous_;
};

// After every test, ends CurrentScenarioOutput(): a scenario that failed or aborted before Emit()
// still gets its timelines out (after its failure messages, the best that can be done then).
class TimelineListener : public testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const testing::TestInfo& test_info) override;
};

}  // namespace aftershock::gtest_integration

#endif  // AFTERSHOCK_FRAMEWORK_GTEST_SCENARIO_OUTPUT_H_
