// Output tests of the sinks (in the spirit of Google Benchmark's output tests): for one hand-made
// outcome, the exact lines each sink prints, the exact files it writes and the exact properties it
// records, and the order in which ReportScenario calls the hooks.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "framework/process/scratch_dir.h"
#include "framework/report/artifacts_reporter.h"
#include "framework/report/junit_properties_reporter.h"
#include "framework/report/scenario_reporter.h"
#include "framework/report/stdout_reporter.h"
#include "framework/report/step_summary_reporter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::report {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A red run: one green gate, the convergence gate red, one chaos error; three offered seconds and
// one fault applied and reverted.
scenario::ScenarioOutcome RedOutcome() {
  scenario::ScenarioOutcome o;
  const RunClock clock = RunClock::StartNow();
  o.load.timeline = metrics::LoadTimeline(clock);
  for (int s = 0; s < 3; ++s) {
    o.load.timeline.At(s).offered = 200;
    o.load.timeline.At(s).ok = 199;
  }
  o.chaos = chaos::ChaosTimeline(clock);
  o.chaos.Record(clock.start() + std::chrono::seconds(1), "apply", "stall");
  o.chaos.Record(clock.start() + std::chrono::seconds(2), "revert", "stall");
  o.load.health.offered_rate = 200;
  o.load.health.achieved_rate = 199.5;
  o.load.health.lag_p99_ms = 0.25;
  o.ledger = std::make_unique<ledger::PromiseLedger>(ledger::LedgerOptions{});
  o.gates = {{.name = "p1-longest-outage", .passed = true, .message = "0 s (budget 5 s)",
              .figures = {{"p1_longest_outage_seconds", 0}}},
             {.name = "target-converged", .passed = false, .message = "not converged within 0.3 s (4 check(s)): x",
              .figures = {{"converge_seconds", 0.3}, {"converge_checks", 4}}}};
  o.chaos_errors = {"revert of stall failed"};
  return o;
}

std::string Marked(const std::string& file, const std::string& csv, std::size_t rows) {
  return "##aftershock BEGIN " + file + " set=pr scenario=probe\n" + csv + "##aftershock END " + file +
         " rows=" + std::to_string(rows) + "\n";
}

const ScenarioInfo kInfo{.set = "pr", .scenario = "probe", .artifacts_dir = ""};

TEST(MakeScenarioReport, RendersBothTimelinesTheVerdictAndTheFailures) {
  const auto outcome = RedOutcome();
  const ScenarioReport r = MakeScenarioReport(outcome);
  ASSERT_EQ(r.timelines.size(), 2u);
  EXPECT_EQ(r.timelines[0].file_name, "load-timeline.csv");
  EXPECT_EQ(r.timelines[0].rows, 3u);
  EXPECT_EQ(r.timelines[1].file_name, "chaos-timeline.csv");
  EXPECT_EQ(r.timelines[1].rows, 2u);
  EXPECT_EQ(r.timelines[1].csv.back(), '\n');
  EXPECT_EQ(r.verdict,
            "PASS p1-longest-outage: 0 s (budget 5 s)\n"
            "FAIL target-converged: not converged within 0.3 s (4 check(s)): x\n");
  EXPECT_EQ(r.failures,
            "target-converged: not converged within 0.3 s (4 check(s)): x\n"
            "chaos: revert of stall failed\n");
  EXPECT_FALSE(r.all_passed);
}

TEST(StdoutReporter, PrintsTheMarkedTimelinesThenTheStageReportAndTheVerdict) {
  const auto outcome = RedOutcome();
  const ScenarioReport r = MakeScenarioReport(outcome);
  std::ostringstream out;
  StdoutReporter sink(out);
  ReportScenario({&sink}, kInfo, outcome);
  EXPECT_EQ(out.str(), Marked("load-timeline.csv", r.timelines[0].csv, 3) +
                           Marked("chaos-timeline.csv", r.timelines[1].csv, 2) + r.stage_report_txt + r.verdict);
  // The CSVs are the real ones: a header line and one line per second / event.
  EXPECT_EQ(r.timelines[0].csv.rfind("unix_ms,second,", 0), 0u) << r.timelines[0].csv;
}

TEST(ArtifactsReporter, WritesTheEightFilesOfTheScenarioFolder) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-report-test");
  const auto outcome = RedOutcome();
  const ScenarioReport r = MakeScenarioReport(outcome);
  ArtifactsReporter sink;
  const ScenarioInfo info{.set = "pr", .scenario = "probe", .artifacts_dir = tmp.path() + "/pr/probe"};
  ReportScenario({&sink}, info, outcome);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(info.artifacts_dir)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_THAT(names, ElementsAre("chaos-timeline.csv", "failures.txt", "gates.json", "load-timeline.csv", "stage-report.json",
                                 "stage-report.md", "stage-report.txt", "verdict.txt"));
  const std::filesystem::path dir = info.artifacts_dir;
  EXPECT_EQ(Slurp(dir / "load-timeline.csv"), r.timelines[0].csv);
  EXPECT_EQ(Slurp(dir / "chaos-timeline.csv"), r.timelines[1].csv);
  EXPECT_EQ(Slurp(dir / "verdict.txt"), r.verdict);
  EXPECT_EQ(Slurp(dir / "failures.txt"),
            "target-converged: not converged within 0.3 s (4 check(s)): x\nchaos: revert of stall failed\n");
  EXPECT_EQ(Slurp(dir / "stage-report.txt"), r.stage_report_txt);
  EXPECT_EQ(Slurp(dir / "stage-report.md"), r.stage_report_md);
  EXPECT_EQ(Slurp(dir / "stage-report.json"), r.stage_report_json);
  EXPECT_EQ(Slurp(dir / "gates.json"), r.gates_json);
}

TEST(ArtifactsReporter, AGreenRunLeavesAnEmptyFailuresFile) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-report-test");
  auto outcome = RedOutcome();
  outcome.gates.pop_back();
  outcome.chaos_errors.clear();
  ArtifactsReporter sink;
  ReportScenario({&sink}, {.set = "pr", .scenario = "probe", .artifacts_dir = tmp.path()}, outcome);
  EXPECT_EQ(Slurp(std::filesystem::path(tmp.path()) / "failures.txt"), "");
  EXPECT_EQ(Slurp(std::filesystem::path(tmp.path()) / "verdict.txt"), "PASS p1-longest-outage: 0 s (budget 5 s)\n");
}

TEST(JunitPropertiesReporter, RecordsTheRunFiguresThenEachGateAndItsFigures) {
  std::vector<std::pair<std::string, std::string>> props;
  JunitPropertiesReporter sink([&](const std::string& k, const std::string& v) { props.emplace_back(k, v); });
  ReportScenario({&sink}, kInfo, RedOutcome());
  EXPECT_THAT(props, ElementsAre(Pair("offered_rate", "200.000"), Pair("achieved_rate", "199.500"),
                                 Pair("dispatch_lag_p99_ms", "0.250"), Pair("ledger_acknowledged", "0"),
                                 Pair("gate_p1-longest-outage", "pass"), Pair("p1_longest_outage_seconds", "0.000"),
                                 Pair("gate_target-converged", "fail"), Pair("converge_seconds", "0.300"),
                                 Pair("converge_checks", "4.000")));
}

TEST(StepSummaryReporter, AppendsOneSectionPerScenario) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-report-test");
  const std::string path = tmp.path() + "/summary.md";
  const auto outcome = RedOutcome();
  const ScenarioReport r = MakeScenarioReport(outcome);
  StepSummaryReporter sink(path);
  ReportScenario({&sink}, kInfo, outcome);
  ReportScenario({&sink}, {.set = "pr", .scenario = "second", .artifacts_dir = ""}, outcome);
  EXPECT_EQ(Slurp(path), "### pr / probe\n\n" + r.stage_report_md + "\n" + "### pr / second\n\n" +
                             r.stage_report_md + "\n");
}

// Records the hooks it sees, to check the order across sinks.
class HookLog : public ScenarioReporter {
 public:
  HookLog(std::string name, std::vector<std::string>& log) : name_(std::move(name)), log_(log) {}
  void OnScenarioStart(const ScenarioInfo&) override { log_.push_back(name_ + ".start"); }
  void OnTimelines(const ScenarioInfo&, const ScenarioReport&) override { log_.push_back(name_ + ".timelines"); }
  void OnVerdict(const ScenarioInfo&, const ScenarioReport&) override { log_.push_back(name_ + ".verdict"); }
  void OnScenarioEnd(const ScenarioInfo&) override { log_.push_back(name_ + ".end"); }

 private:
  std::string name_;
  std::vector<std::string>& log_;
};

TEST(ReportScenario, EveryTimelineGoesOutBeforeAnyVerdict) {
  std::vector<std::string> log;
  HookLog a("a", log), b("b", log);
  ScenarioReporter quiet;  // the base class does nothing, and compiles as a sink
  ReportScenario({&a, &quiet, &b}, kInfo, RedOutcome());
  EXPECT_THAT(log, ElementsAre("a.start", "b.start", "a.timelines", "b.timelines", "a.verdict", "b.verdict", "a.end",
                               "b.end"));
}

}  // namespace
}  // namespace aftershock::report
