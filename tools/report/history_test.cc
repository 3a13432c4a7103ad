// aftershock-report history: one figure over three runs written by the real artifacts sink, as a
// text table ("-" where a run lacks the scenario) and an SVG with one line per scenario.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "framework/process/scratch_dir.h"
#include "framework/report/artifacts_reporter.h"
#include "framework/report/scenario_reporter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/report/history.h"

namespace aftershock::report_tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

void WriteScenario(const std::string& root, const std::string& name, double outage_seconds) {
  scenario::ScenarioOutcome o;
  o.gates = {{.name = "p1-longest-outage", .passed = outage_seconds <= 5, .message = "",
              .figures = {{"longest_outage_seconds", outage_seconds}, {"max_outage_seconds", 5}}}};
  report::ArtifactsReporter files;
  report::ReportScenario({&files}, {.set = "weekly", .scenario = name, .artifacts_dir = root + "/weekly/" + name}, o);
}

std::size_t Count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

TEST(History, OneFigureAcrossRunsAsTextAndSvg) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-history-test");
  const std::string r1 = tmp.path() + "/r1", r2 = tmp.path() + "/r2", r3 = tmp.path() + "/r3";
  WriteScenario(r1, "primary-kill", 2);
  WriteScenario(r1, "replica-kill", 0);
  WriteScenario(r2, "primary-kill", 7.5);
  WriteScenario(r2, "replica-kill", 1);
  WriteScenario(r3, "replica-kill", 0);  // primary-kill did not run
  std::ostringstream out, err;
  const std::string svg = tmp.path() + "/h.svg";
  const int code = RunReportCommand({"history", "--figure=longest_outage_seconds", "--svg=" + svg, r1, r2, r3}, out, err);
  EXPECT_EQ(code, 0) << err.str();
  const std::string w = std::string(r1.size() - 3, ' ');
  EXPECT_EQ(out.str(), "p1-longest-outage.longest_outage_seconds\n"
                       "run" + w + "  weekly/primary-kill  weekly/replica-kill\n" +
                       r1 + "  2                    0\n" +
                       r2 + "  7.5                  1\n" +
                       r3 + "  -                    0\n"
                       "written to " + svg + "\n");
  std::ifstream in(svg);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_THAT(s.str(), StartsWith("<?xml"));
  EXPECT_THAT(s.str(), HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" data-plot=\"history\""));
  // primary-kill: one line over runs 1-2 (run 3 lacks it); replica-kill: one line over all three.
  EXPECT_EQ(Count(s.str(), "<polyline class=\"series\" data-series=\"weekly/primary-kill\""), 1u);
  EXPECT_EQ(Count(s.str(), "<polyline class=\"series\" data-series=\"weekly/replica-kill\""), 1u);
}

TEST(History, AGateQualifiedNameAndAScenarioSelectOneColumn) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-history-test");
  WriteScenario(tmp.path() + "/r1", "primary-kill", 2);
  WriteScenario(tmp.path() + "/r1", "replica-kill", 0);
  std::ostringstream out, err;
  EXPECT_EQ(RunReportCommand({"history", "--figure=p1-longest-outage.longest_outage_seconds",
                              "--scenario=weekly/replica-kill", tmp.path() + "/r1"}, out, err), 0);
  EXPECT_THAT(out.str(), HasSubstr("run" + std::string(tmp.path().size() + 3 - 3, ' ') + "  weekly/replica-kill\n"));
  EXPECT_THAT(out.str(), Not(HasSubstr("primary-kill")));
}

TEST(History, AFigureNoRunHasIsAnError) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-history-test");
  WriteScenario(tmp.path() + "/r1", "primary-kill", 2);
  std::ostringstream out, err;
  EXPECT_EQ(RunReportCommand({"history", "--figure=nope", tmp.path() + "/r1"}, out, err), 1);
  EXPECT_THAT(err.str(), HasSubstr("no run has the figure 'nope'"));
  EXPECT_EQ(RunReportCommand({"history", tmp.path() + "/r1"}, out, err), 2);
  EXPECT_EQ(RunReportCommand({"history", "--figure=x", tmp.path() + "/none"}, out, err), 2);
}

}  // namespace
}  // namespace aftershock::report_tools
