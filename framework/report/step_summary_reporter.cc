#include "framework/report/step_summary_reporter.h"

#include <cstdio>
#include <fstream>

namespace aftershock::report {

void StepSummaryReporter::OnVerdict(const ScenarioInfo& info, const ScenarioReport& report) {
  if (path_.empty()) return;
  std::ofstream out(path_, std::ios::app);
  out << "### " << info.set << " / " << info.scenario << "\n\n" << report.stage_report_md << "\n";
  out.close();
  if (!out) std::fprintf(stderr, "aftershock: cannot append to the step summary %s\n", path_.c_str());
}

}  // namespace aftershock::report
