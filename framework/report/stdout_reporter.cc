#include "framework/report/stdout_reporter.h"

#include "framework/report/markers.h"

namespace aftershock::report {

void StdoutReporter::OnTimelines(const ScenarioInfo& info, const ScenarioReport& report) {
  for (const Timeline& t : report.timelines) WriteMarkedTimeline(out_, t.file_name, info.set, info.scenario, t.csv, t.rows);
}

void StdoutReporter::OnVerdict(const ScenarioInfo& /*info*/, const ScenarioReport& report) {
  out_ << report.stage_report_txt << report.verdict << std::flush;
}

}  // namespace aftershock::report
