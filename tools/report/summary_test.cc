// aftershock-report summary: the exact Markdown of a set with a red scenario (a failed gate and an
// interruption) and a green one, written by the real artifacts sink; bad input exits 2.
#include <sstream>
#include <string>

#include "framework/process/scratch_dir.h"
#include "framework/report/artifacts_reporter.h"
#include "framework/report/scenario_reporter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/report/compare.h"
#include "tools/report/summary.h"

namespace aftershock::report_tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

void WriteScenario(const std::string& set_dir, const std::string& name, bool red) {
  scenario::ScenarioOutcome o;
  o.gates = {{.name = "p1-longest-outage", .passed = !red, .message = red ? "7 s from second 2 (budget 5 s)" : "0 s (budget 5 s)",
              .figures = {{"longest_outage_seconds", red ? 7 : 0}, {"max_outage_seconds", 5}}},
             gates::NotApplicable("alert-fired", "no alert rule | none")};
  o.interrupted = red;
  report::ArtifactsReporter files;
  report::ReportScenario({&files}, {.set = "pr", .scenario = name, .artifacts_dir = set_dir + "/" + name}, o);
}

TEST(Summary, TheSetsVerdictTableTheFailingGatesAndTheOtherReasons) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-summary-test");
  const std::string set_dir = tmp.path() + "/pr";
  WriteScenario(set_dir, "primary-kill", true);
  WriteScenario(set_dir, "replica-kill", false);
  std::ostringstream out, err;
  const int code = RunReportCommand({"summary", set_dir, "--artifact-name=artifacts-pr",
                                     "--artifact-url=https://github.com/o/r/actions/runs/42"}, out, err);
  EXPECT_EQ(code, 0) << err.str();  // ctest judges; the summary only tells
  EXPECT_EQ(out.str(),
            "## aftershock set pr: FAIL (1 of 2 scenario(s) red)\n\n"
            "| scenario | verdict | red gates | report |\n|---|---|---:|---|\n"
            "| primary-kill | **FAIL** | 1 | `pr/primary-kill/report.html` |\n"
            "| replica-kill | PASS | 0 | `pr/replica-kill/report.html` |\n"
            "\n### Failing gates\n\n| scenario | gate | figure and budget | figures |\n|---|---|---|---|\n"
            "| primary-kill | p1-longest-outage | 7 s from second 2 (budget 5 s) | longest_outage_seconds = 7, "
            "max_outage_seconds = 5 |\n"
            "\n### Other reasons\n\n"
            "- primary-kill: interrupted: the run was stopped early (SIGINT/SIGTERM)\n"
            "\nThe HTML reports: `pr/index.html` and `pr/<scenario>/report.html` in the artifact `artifacts-pr` "
            "([the run's artifacts](https://github.com/o/r/actions/runs/42)) (docs/report.md).\n");
}

// A seeded defect's scenario: p3 expected red; `caught` says whether it turned red.
void WriteVerdictScenario(const std::string& set_dir, const std::string& name, bool caught) {
  scenario::ScenarioOutcome o;
  o.gates = {{.name = "p1-longest-outage", .passed = true, .message = "0 s (budget 5 s)", .figures = {}},
             {.name = "p3-reverse-lookup", .passed = !caught, .message = caught ? "16 lost" : "0 lost",
              .figures = {{"promises_lost", caught ? 16 : 0}}}};
  report::ArtifactsReporter files;
  report::ReportScenario({&files}, {.set = "verdict", .scenario = name, .artifacts_dir = set_dir + "/" + name,
                                    .expected_red = {"p3-reverse-lookup"}}, o);
}

TEST(Summary, ACaughtSeededDefectIsRedAsExpectedAndOneNotCaughtIsTheFailure) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-summary-test");
  const std::string set_dir = tmp.path() + "/verdict";
  WriteVerdictScenario(set_dir, "caught", true);
  std::ostringstream out, err;
  ASSERT_EQ(RunReportCommand({"summary", set_dir}, out, err), 0) << err.str();
  EXPECT_THAT(out.str(), HasSubstr("## aftershock set verdict: PASS (0 of 1 scenario(s) red, 1 red as expected: a "
                                   "seeded defect caught)\n"));
  EXPECT_THAT(out.str(), HasSubstr("| caught | red as expected | 1 | `verdict/caught/report.html` |\n"));
  EXPECT_THAT(out.str(), HasSubstr("| caught | p3-reverse-lookup (expected red) | 16 lost | promises_lost = 16 |\n"));
  EXPECT_THAT(out.str(), Not(HasSubstr("Other reasons")));

  WriteVerdictScenario(set_dir, "not-caught", false);
  std::ostringstream out2;
  ASSERT_EQ(RunReportCommand({"summary", set_dir}, out2, err), 0) << err.str();
  EXPECT_THAT(out2.str(), HasSubstr("## aftershock set verdict: FAIL (1 of 2 scenario(s) red, 1 red as expected"));
  EXPECT_THAT(out2.str(), HasSubstr("| not-caught | **FAIL** | 0 | `verdict/not-caught/report.html` |\n"));
  EXPECT_THAT(out2.str(), HasSubstr("\n### Other reasons\n\n- not-caught: seeded defect NOT caught: gate "
                                    "p3-reverse-lookup stayed green: 0 lost\n"));
}

TEST(Summary, AGreenSetSaysPassAndBadInputExitsTwo) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-summary-test");
  WriteScenario(tmp.path() + "/pr", "replica-kill", false);
  std::ostringstream out, err;
  EXPECT_EQ(RunReportCommand({"summary", tmp.path() + "/pr"}, out, err), 0);
  EXPECT_THAT(out.str(), HasSubstr("## aftershock set pr: PASS (0 of 1 scenario(s) red)\n"));
  EXPECT_THAT(out.str(), Not(HasSubstr("Failing gates")));
  EXPECT_EQ(RunReportCommand({"summary", tmp.path() + "/empty-does-not-exist"}, out, err), 2);
  EXPECT_EQ(RunReportCommand({"summary", tmp.path() + "/pr", "--artifact-url=x (y)"}, out, err), 2);
  EXPECT_EQ(RunReportCommand({"summary"}, out, err), 2);
}

}  // namespace
}  // namespace aftershock::report_tools
