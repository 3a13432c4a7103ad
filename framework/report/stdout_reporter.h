// StdoutReporter: the sink a developer and a CI log read. Prints each timeline between markers
// (markers.h) as soon as the run is over, then the stage report and the verdict (one line per gate).
//
//   StdoutReporter out;                    // std::cout; a test passes its own stream
//   ReportScenario({&out}, info, outcome);
#ifndef AFTERSHOCK_FRAMEWORK_REPORT_STDOUT_REPORTER_H_
#define AFTERSHOCK_FRAMEWORK_REPORT_STDOUT_REPORTER_H_

#include <iostream>
#include <ostream>

#include "framework/report/scenario_reporter.h"

namespace aftershock::report {

class StdoutReporter : public ScenarioReporter {
 public:
  explicit StdoutReporter(std::ostream& out = std::cout) : out_(out) {}
  void OnTimelines(const ScenarioInfo& info, const ScenarioReport& report) override;
  void OnVerdict(const ScenarioInfo& info, const ScenarioReport& report) override;

 private:
  std::ostream& out_;
};

}  // namespace aftershock::report

#endif  // AFTERSHOCK_FRAMEWORK_REPORT_STDOUT_REPORTER_H_
