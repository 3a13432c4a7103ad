#include "framework/report/scenario_reporter.h"

#include <sstream>

#include "framework/metrics/load_timeline.h"
#include "framework/metrics/stage_summary.h"

namespace aftershock::report {
namespace {

template <typename Write>
Timeline Render(std::string file_name, Write write) {
  std::ostringstream csv;
  Timeline t;
  t.file_name = std::move(file_name);
  t.rows = write(csv);
  t.csv = std::move(csv).str();
  if (!t.csv.empty() && t.csv.back() != '\n') t.csv += '\n';
  return t;
}

}  // namespace

ScenarioReport MakeScenarioReport(const scenario::ScenarioOutcome& outcome) {
  ScenarioReport r;
  r.outcome = &outcome;
  r.timelines.push_back(Render("load-timeline.csv", [&](std::ostream& o) {
    return metrics::WriteLoadTimelineCsv(outcome.load.timeline, o);
  }));
  r.timelines.push_back(Render("chaos-timeline.csv", [&](std::ostream& o) { return outcome.chaos.WriteCsv(o); }));

  const auto summaries = metrics::SummarizeStages(outcome.load.timeline);
  std::ostringstream txt, md, json;
  metrics::WriteStageReport(summaries, txt);
  metrics::WriteStageReportMarkdown(summaries, md);
  metrics::WriteStageReportJson(summaries, json);
  r.stage_report_txt = std::move(txt).str();
  r.stage_report_md = std::move(md).str();
  r.stage_report_json = std::move(json).str();
  r.verdict = gates::FormatGateReport(outcome.gates);

  for (const auto& reason : gates::FailureReasons(outcome.gates)) r.failures += reason + "\n";
  for (const auto& e : outcome.chaos_errors) r.failures += "chaos: " + e + "\n";
  if (!outcome.ledger_error.empty()) r.failures += "ledger file: " + outcome.ledger_error + "\n";
  if (outcome.interrupted) r.failures += "interrupted: the run was stopped early (SIGINT/SIGTERM)\n";
  r.all_passed = r.failures.empty();
  return r;
}

ScenarioReport ReportScenario(const std::vector<ScenarioReporter*>& reporters, const ScenarioInfo& info,
                              const scenario::ScenarioOutcome& outcome) {
  ScenarioReport report = MakeScenarioReport(outcome);
  for (ScenarioReporter* r : reporters) r->OnScenarioStart(info);
  for (ScenarioReporter* r : reporters) r->OnTimelines(info, report);
  for (ScenarioReporter* r : reporters) r->OnVerdict(info, report);
  for (ScenarioReporter* r : reporters) r->OnScenarioEnd(info);
  return report;
}

}  // namespace aftershock::report
