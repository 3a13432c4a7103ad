// aftershock-report compare over artifact folders written by the real artifacts sink: two identical
// runs pass, a seeded regression (a longer outage, its gate red) is flagged and fails the exit code
// when asked, within the tolerance nothing is flagged, and a scenario missing in B is a regression.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "framework/gates/gates.h"
#include "framework/process/scratch_dir.h"
#include "framework/report/artifacts_reporter.h"
#include "framework/report/scenario_reporter.h"
#include "framework/stress/internal/gate_results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/report/compare.h"

namespace aftershock::report_tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A run of `outage_seconds` without success in a 10 s, 100/s run; the outage gate's budget is 5 s.
scenario::ScenarioOutcome Outcome(int outage_seconds, double recover_ms = 800) {
  scenario::ScenarioOutcome o;
  const RunClock clock = RunClock::StartNow();
  o.load.timeline = metrics::LoadTimeline(clock);
  for (int s = 0; s < 10; ++s) {
    auto& b = o.load.timeline.At(s);
    b.stage = "load";
    b.offered = 100;
    b.ok = s >= 2 && s < 2 + outage_seconds ? 0 : 100;
    b.failed = 100 - b.ok;
    b.latency.Record(1'000'000);
  }
  using D = gates::FigureDirection;
  o.gates = {{.name = "p1-longest-outage", .passed = outage_seconds <= 5,
              .message = std::to_string(outage_seconds) + " s (budget 5 s)",
              .figures = {{"longest_outage_seconds", outage_seconds}, {"longest_outage_first_second", 2},
                          {"max_outage_seconds", 5}},
              .directions = {{"longest_outage_seconds", D::kLowerIsBetter},
                             {"longest_outage_first_second", D::kNeither},
                             {"max_outage_seconds", D::kNeither}}},
             {.name = "time-to-recover", .passed = recover_ms >= 0, .message = "",
              .figures = {{"time_to_recover_ms_round_1", recover_ms}},
              .directions = {{"time_to_recover_ms_round_1", D::kLowerIsBetter}}}};
  return o;
}

// One scenario folder of a run, written by the real artifacts sink.
void WriteRun(const std::string& root, const std::string& name, const scenario::ScenarioOutcome& outcome) {
  report::ArtifactsReporter files;
  report::ReportScenario({&files}, {.set = "pr", .scenario = name, .artifacts_dir = root + "/pr/" + name}, outcome);
}

struct Result {
  int code = -1;
  std::string out, err;
};

Result Report(std::vector<std::string> args) {
  std::ostringstream out, err;
  Result r;
  r.code = RunReportCommand(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

class CompareTest : public ::testing::Test {
 protected:
  process::ScratchDir tmp_ = process::ScratchDir::Create("aftershock-compare-test");
  std::string a_ = tmp_.path() + "/a";
  std::string b_ = tmp_.path() + "/b";
};

TEST_F(CompareTest, TwoIdenticalRunsPass) {
  for (const std::string& root : {a_, b_}) {
    WriteRun(root, "primary-kill", Outcome(2));
    WriteRun(root, "replica-kill", Outcome(0));
  }
  const Result r = Report({"compare", a_, b_, "--fail-on-regression"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("pr/primary-kill  p1-longest-outage  longest_outage_seconds"));
  EXPECT_THAT(r.out, HasSubstr("pr/primary-kill  stage total        p99_ms"));
  EXPECT_THAT(r.out, Not(HasSubstr("  regression\n")));
  EXPECT_THAT(r.out, HasSubstr("\nno regression (tolerance 10 %, at least 0)\n"));
}

TEST_F(CompareTest, ALongerOutageIsFlagged) {
  WriteRun(a_, "primary-kill", Outcome(2));
  WriteRun(b_, "primary-kill", Outcome(7));
  const auto rows = Compare(LoadRun(a_), LoadRun(b_), {});
  std::vector<std::string> flagged;
  for (const auto& row : rows) {
    if (row.regression) flagged.push_back(row.gate + "." + row.figure);
  }
  // The gate went red, its figure grew beyond 10 %, and so did the run's failures; the budget and
  // the outage's first second are not figures to judge.
  EXPECT_EQ(flagged, (std::vector<std::string>{"p1-longest-outage.result", "p1-longest-outage.longest_outage_seconds",
                                               "stage total.ok", "stage total.failed", "stage total.success_ratio"}));
  Result r = Report({"compare", a_, b_});
  EXPECT_EQ(r.code, 0) << "without --fail-on-regression the exit stays 0";
  EXPECT_THAT(r.out, HasSubstr("longest_outage_seconds       2     7     +5 (+250 %)     regression\n"));
  EXPECT_THAT(r.out, HasSubstr("5 regression(s) (tolerance 10 %, at least 0)"));
  r = Report({"compare", a_, b_, "--fail-on-regression", "--format=markdown"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("| pr/primary-kill | p1-longest-outage | result | PASS | FAIL |  | **regression** |"));
  r = Report({"compare", a_, b_, "--format=html", "--output=" + tmp_.path() + "/compare.html"});
  EXPECT_EQ(r.code, 0);
  std::ifstream html(tmp_.path() + "/compare.html");
  std::stringstream s;
  s << html.rdbuf();
  EXPECT_THAT(s.str(), HasSubstr("<tr class=\"regression\"><td>pr/primary-kill</td><td>p1-longest-outage</td><td>result</td>"));
}

TEST_F(CompareTest, AChangeWithinTheToleranceIsNotFlagged) {
  WriteRun(a_, "p", Outcome(2, 800));
  WriteRun(b_, "p", Outcome(2, 860));  // +7.5 %
  EXPECT_EQ(Report({"compare", a_, b_, "--fail-on-regression"}).code, 0);
  const Result r = Report({"compare", a_, b_, "--fail-on-regression", "--tolerance=5%"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("time_to_recover_ms_round_1   800   860   +60 (+7.5 %)  regression\n"));
  EXPECT_EQ(Report({"compare", a_, b_, "--fail-on-regression", "--tolerance=5%", "--abs-tolerance=100"}).code, 0);
}

TEST_F(CompareTest, NotRecoveringIsWorseThanAnyRecoveryTime) {
  WriteRun(a_, "p", Outcome(2, 800));
  WriteRun(b_, "p", Outcome(2, -1));
  const auto rows = Compare(LoadRun(a_), LoadRun(b_), {});
  bool flagged = false;
  for (const auto& row : rows) flagged |= row.figure == "time_to_recover_ms_round_1" && row.regression;
  EXPECT_TRUE(flagged);
  // The other way round it is an improvement.
  for (const auto& row : Compare(LoadRun(b_), LoadRun(a_), {})) {
    if (row.figure == "time_to_recover_ms_round_1") {
      EXPECT_EQ(row.flag, "improved");
    }
  }
}

TEST_F(CompareTest, AScenarioMissingInBIsARegressionANewOneIsNot) {
  WriteRun(a_, "p", Outcome(2));
  WriteRun(a_, "q", Outcome(2));
  WriteRun(b_, "p", Outcome(2));
  WriteRun(b_, "r", Outcome(2));
  const Result r = Report({"compare", a_, b_, "--fail-on-regression"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("\npr/q                         scenario                     present  -               missing in B\n"));
  EXPECT_THAT(r.out, HasSubstr("\npr/r                         scenario                     -        present         new in B\n"));
  EXPECT_THAT(r.out, HasSubstr("1 regression(s)"));
}

TEST_F(CompareTest, ReadsAFolderWithoutGatesJsonFromItsVerdict) {
  std::filesystem::create_directories(a_ + "/pr/p");
  std::filesystem::create_directories(b_ + "/pr/p");
  std::ofstream(a_ + "/pr/p/verdict.txt") << "PASS p1-longest-outage: 0 s (budget 5 s)\nN/A alert-fired: none\n";
  std::ofstream(b_ + "/pr/p/verdict.txt") << "FAIL p1-longest-outage: 9 s (budget 5 s)\nN/A alert-fired: none\n";
  const auto rows = Compare(LoadRun(a_), LoadRun(b_), {});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].gate, "p1-longest-outage");
  EXPECT_TRUE(rows[0].regression);
  EXPECT_EQ(rows[1].gate, "alert-fired");
  EXPECT_FALSE(rows[1].regression);
}

TEST_F(CompareTest, BadArgumentsAndEmptyFoldersExitTwo) {
  std::filesystem::create_directories(a_);
  WriteRun(b_, "p", Outcome(2));
  Result r = Report({"compare", a_, b_});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("holds no scenario (no gates.json or verdict.txt below it)"));
  EXPECT_EQ(Report({"compare", b_}).code, 2);
  EXPECT_EQ(Report({"compare", b_, b_, "--tolerance=ten"}).code, 2);
  EXPECT_EQ(Report({"compare", b_, b_, "--format=pdf"}).code, 2);
  EXPECT_EQ(Report({"compre", b_, b_}).code, 2);
  EXPECT_EQ(Report({"compare", b_, tmp_.path() + "/nope"}).code, 2);
  std::ofstream(b_ + "/pr/p/gates.json") << "{not json";
  r = Report({"compare", b_, b_});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("gates.json: not a gates.json"));
}

// A rise of these two is a regression: their gates declare them lower-is-better, and compare reads
// that (it once guessed "higher" from "ratio" in their names and called the rise an improvement).
TEST_F(CompareTest, TheUndecidedRatioAndTheDownstreamRatioRiseAsRegressions) {
  auto outcome = [](double undecided, double downstream) {
    scenario::ScenarioOutcome o = Outcome(0);
    ledger::VerificationReport v;
    v.sample_size = 100;
    v.checked = 100 - static_cast<std::size_t>(undecided * 100);
    v.errors = static_cast<std::size_t>(undecided * 100);
    gates::GateInputs in;
    in.verification = &v;
    in.ledger_acknowledged = 100;
    in.max_undecided_ratio = 0.5;
    for (const gates::GateResult& g : gates::EvaluateGates(in)) {
      if (g.name == "verification-decided") o.gates.push_back(g);
    }
    gates::GateResult pool = stress::internal::Green("downstream-isolation", "", {{"downstream_max_ratio", downstream}});
    o.gates.push_back(pool);
    return o;
  };
  WriteRun(a_, "breakpoint", outcome(0.0, 0.4));
  WriteRun(b_, "breakpoint", outcome(0.2, 0.9));
  const Result r = Report({"compare", a_, b_});
  EXPECT_THAT(r.out, HasSubstr("verification_undecided_ratio"));
  std::istringstream lines(r.out);
  int flagged = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("verification_undecided_ratio") != std::string::npos ||
        line.find("downstream_max_ratio") != std::string::npos) {
      EXPECT_THAT(line, HasSubstr("regression")) << line;
      EXPECT_THAT(line, Not(HasSubstr("improved"))) << line;
      ++flagged;
    }
  }
  EXPECT_EQ(flagged, 2) << r.out;
}

// No guessing: a figure whose gate declared no direction is shown, never flagged either way.
TEST(DeclaredDirectionTest, AnUndeclaredFigureIsNeutralAndBsDeclarationWins) {
  GateFigures a{"PASS", {{"x", 1}, {"y", 1}}, "", {{"x", Direction::kLowerIsBetter}}};
  GateFigures b{"PASS", {{"x", 2}, {"y", 1}}, "", {{"x", Direction::kHigherIsBetter}}};
  EXPECT_EQ(DeclaredDirection("x", &a, &b), Direction::kHigherIsBetter);
  EXPECT_EQ(DeclaredDirection("x", &a, nullptr), Direction::kLowerIsBetter);
  EXPECT_EQ(DeclaredDirection("y", &a, &b), Direction::kNeutral);
  EXPECT_EQ(DeclaredDirection("promises_lost", nullptr, nullptr), Direction::kNeutral);
}

}  // namespace
}  // namespace aftershock::report_tools
