// "Not applicable": every gate with nothing to check says N/A, never PASS, and N/A never hides a FAIL.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "framework/gates/gates.h"
#include "framework/gates/internal/test_gate_results.h"
#include "framework/gates/internal/test_timeline.h"
#include "gtest/gtest.h"

namespace aftershock::gates {
namespace {

using internal::GateNamed;
using internal::Healthy;
using internal::MakeGateResult;
using internal::MakeTimeline;
using ledger::VerificationReport;
using ledger::Violation;

// A healthy run whose verifier decided `checked` promises for P3 only (a read-back verifier).
struct ReadBackRun {
  metrics::LoadTimeline timeline = MakeTimeline(Healthy(10));
  metrics::GeneratorHealth health;
  VerificationReport verification;
  GateInputs inputs;
  ReadBackRun() {
    health.offered_rate = health.achieved_rate = 100;
    verification.sample_size = verification.checked = verification.p3_decided = 200;
    inputs.timeline = &timeline;
    inputs.health = &health;
    inputs.verification = &verification;
    inputs.ledger_acknowledged = 200;
    inputs.budgets = GateBudgets{.max_outage_seconds = 5, .max_unavailable_seconds = 10, .max_recovery_seconds = 5};
  }
};

TEST(NotApplicableTest, P2IsNotApplicableWhenTheVerifierReissuedNothing) {
  ReadBackRun run;
  const std::vector<GateResult> results = EvaluateGates(run.inputs);
  const GateResult& p2 = GateNamed(results, kPromiseStability);
  EXPECT_TRUE(p2.not_applicable);
  EXPECT_TRUE(p2.passed);
  EXPECT_EQ(p2.message, "the verifier checks no re-issue stability (decided for 0 of 200 sampled promises, 200 checked)");
  EXPECT_FALSE(GateNamed(results, kReverseLookup).not_applicable);
  EXPECT_EQ(GateNamed(results, kReverseLookup).message, "0 lost of 200 checked");
  const std::string report = FormatGateReport(results);
  EXPECT_NE(report.find("N/A p2-promise-stability: "), std::string::npos) << report;
  EXPECT_EQ(report.find("PASS p2-promise-stability"), std::string::npos) << report;
  EXPECT_EQ(report.find("0 changed"), std::string::npos) << report;  // the "PASS 0 changed"
  EXPECT_TRUE(AllPassed(results)) << report;
}

TEST(NotApplicableTest, P3IsNotApplicableWhenTheVerifierLookedNothingUp) {
  ReadBackRun run;
  run.verification.p3_decided = 0;
  run.verification.p2_decided = 200;
  const std::vector<GateResult> results = EvaluateGates(run.inputs);
  EXPECT_TRUE(GateNamed(results, kReverseLookup).not_applicable);
  EXPECT_FALSE(GateNamed(results, kPromiseStability).not_applicable);
}

TEST(NotApplicableTest, AViolationIsRedEvenWhenNothingCountsAsDecided) {
  // N/A never hides a FAIL: a report with a P2 violation is judged, whatever p2_decided says.
  ReadBackRun run;
  run.verification.p2_violations = 1;
  run.verification.violations = {
      {"alice", "p-17", "p-99", "p-17", 5, Violation::Property::kP2Stability, Violation::Kind::kChanged}};
  const std::vector<GateResult> results = EvaluateGates(run.inputs);
  const GateResult& p2 = GateNamed(results, kPromiseStability);
  EXPECT_FALSE(p2.passed);
  EXPECT_FALSE(p2.not_applicable);
  EXPECT_FALSE(AllPassed(results));
  EXPECT_NE(FormatGateReport(results).find("FAIL p2-promise-stability: 1 promises changed"), std::string::npos);
}

TEST(NotApplicableTest, NothingDecidedAtAllIsRedNotNotApplicable) {
  ReadBackRun run;
  run.verification.checked = run.verification.p3_decided = 0;
  run.verification.errors = 200;
  const std::vector<GateResult> results = EvaluateGates(run.inputs);
  for (std::string_view name : {kPromiseStability, kReverseLookup}) {
    const GateResult& r = GateNamed(results, name);
    EXPECT_FALSE(r.passed) << name;
    EXPECT_FALSE(r.not_applicable) << name;
  }
  EXPECT_EQ(GateNamed(results, kPromiseStability).message,
            "re-issue stability was decided for none of the 200 sampled promises (200 undecided): nothing proves it");
}

TEST(NotApplicableTest, AnEmptySampleIsNotApplicableForP2AndP3ButRedForTheLedger) {
  ReadBackRun run;
  run.verification = VerificationReport{};
  run.inputs.ledger_acknowledged = 0;
  const std::vector<GateResult> results = EvaluateGates(run.inputs);
  EXPECT_TRUE(GateNamed(results, kPromiseStability).not_applicable);
  EXPECT_TRUE(GateNamed(results, kReverseLookup).not_applicable);
  EXPECT_FALSE(GateNamed(results, kLedgerNotEmpty).passed);  // a target that promises must have promises
  EXPECT_FALSE(AllPassed(results));
}

TEST(NotApplicableTest, FaultGatesAreNotApplicableWithoutFaultsAndRedWhenPlannedButNeverApplied) {
  ReadBackRun run;
  std::vector<GateResult> results = EvaluateGates(run.inputs);
  EXPECT_TRUE(GateNamed(results, kFaultTookEffect).not_applicable);
  EXPECT_TRUE(GateNamed(results, kTimeToRecover).not_applicable);
  const std::string report = FormatGateReport(results);
  EXPECT_NE(report.find("N/A fault-took-effect: the scenario has no faults\n"), std::string::npos) << report;
  EXPECT_NE(report.find("N/A time-to-recover: no fault round to recover from\n"), std::string::npos) << report;

  run.inputs.planned_faults = 2;  // planned, never applied: the faults gate is red, not N/A
  results = EvaluateGates(run.inputs);
  EXPECT_FALSE(GateNamed(results, kFaultTookEffect).passed);
  EXPECT_FALSE(GateNamed(results, kFaultTookEffect).not_applicable);
}

TEST(NotApplicableTest, TheGatesThatAlwaysApplyAreNeverNotApplicable) {
  ReadBackRun run;
  for (const GateResult& r : EvaluateGates(run.inputs)) {
    if (r.name == kTrafficServed || r.name == kLongestOutage || r.name == kLongestGap ||
        r.name == kUnavailableSeconds || r.name == kShedOutweighsFailures || r.name == kGeneratorLimited ||
        r.name == kLedgerNotEmpty || r.name == kVerificationDecided) {
      EXPECT_FALSE(r.not_applicable) << r.name;
    }
  }
}

TEST(NotApplicableTest, ReportFunctionsShowNotApplicableAndSkipItInFailures) {
  std::vector<GateResult> results = {MakeGateResult("green", true, "fine"),
                                     NotApplicable("idle", "nothing to check"),
                                     MakeGateResult("red", false, "broken")};
  EXPECT_EQ(FormatGateReport(results), "PASS green: fine\nN/A idle: nothing to check\nFAIL red: broken\n");
  EXPECT_EQ(FailureReasons(results), std::vector<std::string>{"red: broken"});
  EXPECT_FALSE(AllPassed(results));
  EXPECT_EQ(StatusProperty(results[0]), "pass");
  EXPECT_EQ(StatusProperty(results[1]), "not-applicable");
  EXPECT_EQ(StatusProperty(results[2]), "fail");
  results.pop_back();
  EXPECT_TRUE(AllPassed(results));  // N/A counts as passed
}

TEST(NotApplicableTest, AGateThatSaysBothNotApplicableAndFailedIsReportedRed) {
  GateSet set;
  set.Add("confused", [](const GateInputs&) {
    return MakeGateResult("", false, "broken", /*not_applicable=*/true);
  });
  const std::vector<GateResult> results = set.Evaluate(GateInputs{});
  EXPECT_FALSE(results[0].not_applicable);
  EXPECT_EQ(FormatGateReport(results), "FAIL confused: broken\n");
  // And a hand-made result with both flags is still red in every report function.
  const GateResult both = MakeGateResult("both", false, "x", /*not_applicable=*/true);
  EXPECT_EQ(StatusWord(both), "FAIL");
  EXPECT_EQ(FailureReasons({both}).size(), 1u);
}

}  // namespace
}  // namespace aftershock::gates
