// ArtifactsReporter: the scenario's artifacts folder (ScenarioInfo::artifacts_dir), what a CI job
// uploads and tools/collect gathers: load-timeline.csv, chaos-timeline.csv, stage-report.txt/.md/.json,
// gates.json (every gate's result and figures as numbers), lost-promises.csv (every lost or changed
// promise; only when the target makes promises), verdict.txt and failures.txt (empty on a green run). The ledger file (ledger.tsv) streams into the same folder during the run
// (framework/scenario); formats in docs/formats.md.
//
//   ArtifactsReporter files;
//   ReportScenario({&files}, {.set = "pr", .scenario = "primary-kill", .artifacts_dir = dir}, outcome);
#ifndef AFTERSHOCK_FRAMEWORK_REPORT_ARTIFACTS_REPORTER_H_
#define AFTERSHOCK_FRAMEWORK_REPORT_ARTIFACTS_REPORTER_H_

#include "framework/report/scenario_reporter.h"

namespace aftershock::report {

class ArtifactsReporter : public ScenarioReporter {
 public:
  void OnTimelines(const ScenarioInfo& info, const ScenarioReport& report) override;
  void OnVerdict(const ScenarioInfo& info, const ScenarioReport& report) override;
};

}  // namespace aftershock::report

#endif  // AFTERSHOCK_FRAMEWORK_REPORT_ARTIFACTS_REPORTER_H_
