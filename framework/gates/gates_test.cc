#include "framework/gates/gates.h"

#include <algorithm>
#include <map>
#include <set>

#include "framework/gates/internal/test_gate_results.h"
#include "framework/gates/internal/test_timeline.h"
#include "gtest/gtest.h"

namespace aftershock::gates {
namespace {

using internal::GateNamed;
using internal::Healthy;
using internal::MakeTimeline;
using internal::SecondCounts;
using ledger::VerificationReport;
using ledger::Violation;

// A run that passes every gate: 20 healthy seconds with a 2-second partial dip after a fault.
struct Scenario {
  metrics::LoadTimeline timeline;
  metrics::GeneratorHealth health;
  VerificationReport verification;
  GateInputs inputs;

  Scenario() {
    std::vector<SecondCounts> s = Healthy(20);
    s[10] = {100, 0, 100, 0};  // fault 10..10, outage 1 s
    s[11] = {100, 60, 30, 10};
    timeline = MakeTimeline(s);
    health.scheduled = 2000;
    health.dispatched = 1990;
    health.shed = 10;
    health.offered_rate = 100;
    health.achieved_rate = 100;
    health.lag_p50_ms = 0.1;
    health.lag_p99_ms = 2.5;
    health.lag_max_ms = 7;
    verification.sample_size = 500;
    verification.checked = 500;
    verification.p2_decided = 500;
    verification.p3_decided = 500;
    verification.indeterminate_total = 4;
    verification.indeterminate_committed = 3;
    verification.indeterminate_unknown = 1;
    Rewire();
  }
  void Rewire() {
    inputs.timeline = &timeline;
    inputs.health = &health;
    inputs.verification = &verification;
    inputs.ledger_acknowledged = 500;
    inputs.faults = {{"primary-kill", 10, 10}};
    inputs.planned_faults = 1;
    inputs.fault_effects = {{"primary-kill", 1, false, FaultEffect::Outcome::kConfirmed,
                             "leader pg-b (was pg-a) after 1.2 s", 11.2}};
    inputs.budgets = GateBudgets{.max_outage_seconds = 5, .max_unavailable_seconds = 10, .max_recovery_seconds = 5};
    inputs.budgets.max_latency_p99_seconds = 0.5;
  }
};

double Figure(const GateResult& r, const std::string& name) {
  for (const auto& [n, v] : r.figures) {
    if (n == name) return v;
  }
  throw std::runtime_error("no figure " + name + " in " + r.name);
}

Violation P3(std::string key, std::string value, Violation::Kind kind, std::string observed = "") {
  return Violation{key, key, std::move(observed), std::move(value), 0, Violation::Property::kP3ReverseLookup, kind};
}

TEST(GatesTest, GreenRunPassesEveryGateInOrder) {
  Scenario sc;
  const std::vector<GateResult> results = EvaluateGates(sc.inputs);
  std::vector<std::string> names;
  for (const GateResult& r : results) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"traffic-served", "ledger-not-empty", "verification-decided",
                                             "p1-longest-gap", "p1-longest-outage", "p1-unavailable-seconds",
                                             "time-to-recover", "latency-p99", "retry-amplification",
                                             "p2-promise-stability",
                                             "p3-reverse-lookup", "shed-outweighs-failures", "generator-limited",
                                             "fault-took-effect", "fault-lease-held"}));
  EXPECT_TRUE(AllPassed(results)) << FormatGateReport(results);
  EXPECT_TRUE(FailureReasons(results).empty());
  EXPECT_EQ(FormatGateReport(results),
            "PASS traffic-served: 1860 ok of 2000 offered\n"
            "PASS ledger-not-empty: 500 acknowledged, 500 of 500 sampled checked (0 errors, 0 unverified); "
            "indeterminate 4: 3 committed, 0 not, 1 unknown\n"
            "PASS verification-decided: exhaustive: 500 of 500 acknowledged promises verified; 0 undecided, budget 0 %\n"
            "PASS p1-longest-gap: 1.01 s without a success from 9.99 s (budget 5 s)\n"
            "PASS p1-longest-outage: 1 whole second without any success from second 10 (budget 5 s); the longest gap to "
            "the ms: 1.01 s without a success from 9.99 s (p1-longest-gap)\n"
            "PASS p1-unavailable-seconds: 1.4 s failure-equivalent (budget 10 s)\n"
            "PASS time-to-recover: primary-kill 2 s (budget 5 s to 3 s in a row at >= 99% ok)\n"
            "PASS latency-p99: p99 5 ms <= 500 ms budget over 1860 successful calls (max 5 ms)\n"
            "PASS retry-amplification: 0 retries per offered call <= 0.05 budget (0 retries for 2000 offered); first "
            "attempts failed for 0 % of 1990 issued calls\n"
            "PASS p2-promise-stability: 0 changed of 500 checked\n"
            "PASS p3-reverse-lookup: 0 lost of 500 checked\n"
            "PASS shed-outweighs-failures: shed 10 < failed 130\n"
            "PASS generator-limited: achieved 100/s of 100/s offered, dispatch lag p99 2.5 ms, max 7 ms\n"
            "PASS fault-took-effect: 1 rounds confirmed, 0 not, 0 skipped; 0 reverts clean, 0 with residue; 0 not confirmable "
            "(primary-kill round 1: leader pg-b (was pg-a) after 1.2 s)\n"
            "N/A fault-lease-held: no fault held a lease\n");
  EXPECT_EQ(Figure(GateNamed(results, kTrafficServed), "total_ok"), 1860);
  EXPECT_EQ(Figure(GateNamed(results, kLongestOutage), "longest_outage_seconds"), 1);
  EXPECT_EQ(Figure(GateNamed(results, kLongestOutage), "longest_outage_first_second"), 10);
  EXPECT_DOUBLE_EQ(Figure(GateNamed(results, kUnavailableSeconds), "unavailable_seconds"), 1.4);
  EXPECT_EQ(Figure(GateNamed(results, kTimeToRecover), "time_to_recover_primary-kill"), 2);
  EXPECT_NEAR(Figure(GateNamed(results, kLongestGap), "p1_longest_gap_ms"), 1010, 0.01);
  EXPECT_EQ(Figure(GateNamed(results, kTimeToRecover), "time_to_recover_ms_round_1"), 2000);
  EXPECT_EQ(Figure(GateNamed(results, kLedgerNotEmpty), "verification_checked"), 500);
  EXPECT_EQ(Figure(GateNamed(results, kVerificationDecided), "ledger_exhaustive"), 1);
}

TEST(GatesTest, VerificationDecidedRedWhenErrorsOutweighTheBudget) {
  // The trap: "1 checked, 1,999 errors" used to pass P2 and P3.
  Scenario sc;
  sc.inputs.ledger_acknowledged = 2000;
  sc.verification = VerificationReport{};
  sc.verification.sample_size = 2000;
  sc.verification.checked = 1;
  sc.verification.p2_decided = 1;
  sc.verification.p3_decided = 1;
  sc.verification.errors = 1999;
  sc.verification.undecided_by_code = {{"INTERNAL", 1990}, {"UNAVAILABLE", 9}};
  sc.verification.error_samples = {"key 'k1': read-back: Get: INTERNAL: row gone (re-issue skipped)"};
  const std::vector<GateResult> results = EvaluateGates(sc.inputs);
  const GateResult& r = GateNamed(results, kVerificationDecided);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "exhaustive: 2000 of 2000 acknowledged promises verified; 1999 undecided (99.95 %: INTERNAL 1990, "
            "UNAVAILABLE 9), budget 0 %: verification did not decide, so P2/P3 prove nothing about these promises; "
            "first error: key 'k1': read-back: Get: INTERNAL: row gone (re-issue skipped)");
  EXPECT_EQ(Figure(r, "verification_undecided"), 1999);
  EXPECT_FALSE(AllPassed(results));
  // Within a budget it passes, and still says what was undecided.
  sc.inputs.max_undecided_ratio = 0.9999;
  EXPECT_TRUE(GateNamed(EvaluateGates(sc.inputs), kVerificationDecided).passed);
  // One undecided promise is over a zero budget.
  Scenario one;
  one.verification.checked = 499;
  one.verification.unverified = 1;
  one.verification.undecided_by_code = {{"not started", 1}};
  const GateResult o = GateNamed(EvaluateGates(one.inputs), kVerificationDecided);
  EXPECT_FALSE(o.passed);
  EXPECT_NE(o.message.find("1 undecided (0.2 %: not started 1)"), std::string::npos) << o.message;
}

TEST(GatesTest, VerificationDecidedSaysSampledBeyondTheBound) {
  Scenario sc;
  sc.inputs.ledger_acknowledged = 50000;
  sc.inputs.ledger_pinned = 120;
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kVerificationDecided);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.message,
            "sampled: 500 of 50000 acknowledged promises verified (120 kept near faults, 0 near faults did not "
            "fit); 0 undecided, budget 0 %");
  EXPECT_EQ(Figure(r, "ledger_exhaustive"), 0);
}

TEST(GatesTest, PromiseGatesAloneForReverification) {
  Scenario sc;
  std::vector<std::string> names;
  for (const GateResult& r : EvaluatePromiseGates(sc.inputs)) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"ledger-not-empty", "verification-decided", "p2-promise-stability",
                                             "p3-reverse-lookup"}));
}

TEST(GatesTest, TrafficServedRedWhenNothingSucceeded) {
  Scenario sc;
  sc.timeline = MakeTimeline(std::vector<SecondCounts>(5, SecondCounts{100, 0, 100, 0}));
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kTrafficServed);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "no call succeeded (500 offered): the run proves nothing about the service");
  EXPECT_EQ(Figure(r, "total_ok"), 0);
  EXPECT_EQ(Figure(r, "total_offered"), 500);
}

TEST(GatesTest, NullTimelineFailsTrafficServed) {
  Scenario sc;
  sc.inputs.timeline = nullptr;
  EXPECT_FALSE(GateNamed(EvaluateGates(sc.inputs), kTrafficServed).passed);
}

TEST(GatesTest, LedgerNotEmptyRedWithoutPromisesOrChecks) {
  Scenario sc;
  sc.inputs.ledger_acknowledged = 0;
  sc.verification = VerificationReport{};
  sc.verification.sample_size = 0;
  GateResult r = GateNamed(EvaluateGates(sc.inputs), kLedgerNotEmpty);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "no promise was acknowledged; verification checked 0 of 0 sampled promises (0 errors, 0 unverified)");

  Scenario all_errors;
  all_errors.verification = VerificationReport{};
  all_errors.verification.sample_size = 3;
  all_errors.verification.errors = 3;
  all_errors.verification.error_samples = {"key 'a': UNAVAILABLE"};
  r = GateNamed(EvaluateGates(all_errors.inputs), kLedgerNotEmpty);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "verification checked 0 of 3 sampled promises (3 errors, 0 unverified), first error: key 'a': UNAVAILABLE");
  EXPECT_EQ(Figure(r, "verification_errors"), 3);

  Scenario no_report;
  no_report.inputs.verification = nullptr;
  const std::vector<GateResult> results = EvaluateGates(no_report.inputs);
  EXPECT_EQ(GateNamed(results, kLedgerNotEmpty).message, "no verification was run");
  EXPECT_FALSE(GateNamed(results, kPromiseStability).passed);
  EXPECT_FALSE(GateNamed(results, kReverseLookup).passed);
  EXPECT_EQ(GateNamed(results, kReverseLookup).message, "no verification report (nothing was checked)");
}

TEST(GatesTest, PromiseGatesNotApplicableWhenNotRequired) {
  Scenario sc;
  sc.inputs.require_promises = false;
  sc.inputs.verification = nullptr;
  sc.inputs.ledger_acknowledged = 0;
  const std::vector<GateResult> results = EvaluateGates(sc.inputs);
  EXPECT_TRUE(AllPassed(results)) << FormatGateReport(results);
  for (std::string_view name : {kLedgerNotEmpty, kVerificationDecided, kPromiseStability, kReverseLookup}) {
    const GateResult& r = GateNamed(results, name);
    EXPECT_TRUE(r.not_applicable) << name;
    EXPECT_TRUE(r.passed) << name;
    EXPECT_EQ(r.message, "the target makes no promises") << name;
  }
  const std::string report = FormatGateReport(results);
  EXPECT_NE(report.find("N/A p2-promise-stability: the target makes no promises\n"), std::string::npos) << report;
  EXPECT_EQ(report.find("PASS p2-promise-stability"), std::string::npos) << report;
}

TEST(GatesTest, LongestOutageRedOverBudget) {
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(30);
  for (int i = 10; i < 16; ++i) s[i] = {100, 0, 90, 10};
  sc.timeline = MakeTimeline(s);
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kLongestOutage);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "6 whole seconds without any success from second 10 (budget 5 s); the longest gap to the ms: 6.01 s "
                       "without a success from 9.99 s (p1-longest-gap)");
  EXPECT_EQ(Figure(r, "longest_outage_seconds"), 6);
  EXPECT_EQ(Figure(r, "longest_outage_first_second"), 10);
  EXPECT_EQ(Figure(r, "max_outage_seconds"), 5);
}

TEST(GatesTest, LongestOutageAtTheBudgetPasses) {
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(30);
  for (int i = 10; i < 15; ++i) s[i] = {100, 0, 100, 0};
  sc.timeline = MakeTimeline(s);
  sc.inputs.faults = {{"f", 10, 14}};
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kLongestOutage);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.message, "5 whole seconds without any success from second 10 (budget 5 s); the longest gap to the ms: 5.01 s "
                       "without a success from 9.99 s (p1-longest-gap)");
}

TEST(GatesTest, UnavailableSecondsRedWhenDegradationAddsUp) {
  // No outage at all, but 40 seconds at 30% failures = 12 failure-equivalent seconds > 10.
  Scenario sc;
  sc.timeline = MakeTimeline(std::vector<SecondCounts>(40, SecondCounts{100, 70, 20, 10}));
  sc.inputs.faults = {};
  sc.health.shed = 400;
  const std::vector<GateResult> results = EvaluateGates(sc.inputs);
  const GateResult& r = GateNamed(results, kUnavailableSeconds);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "12 s failure-equivalent (budget 10 s)");
  EXPECT_DOUBLE_EQ(Figure(r, "unavailable_seconds"), 12.0);
  EXPECT_TRUE(GateNamed(results, kLongestOutage).passed);
}

TEST(GatesTest, TimeToRecoverRedOverBudgetAndWhenNeverRecovered) {
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(30);
  for (int i = 5; i < 12; ++i) s[i] = {100, 90, 10, 0};  // 90% after the fault: not recovered
  for (int i = 25; i < 30; ++i) s[i] = {100, 50, 50, 0};
  sc.timeline = MakeTimeline(s);
  sc.inputs.faults = {{"slow-recovery", 2, 4}, {"ok-fault", 14, 15}, {"never", 24, 24}};
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kTimeToRecover);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "slow-recovery (round 1) 8 s after the revert (over budget) and 0 s after the apply (recovered inside "
            "the fault window), ok-fault (round 2) 0 s after the revert and 0 s after the apply (recovered inside "
            "the fault window), never (round 3) did not recover (fault ended at 24 s, timeline ends at second 30) "
            "(budget 5 s to 3 s in a row at >= 99% ok)");
  EXPECT_EQ(Figure(r, "time_to_recover_slow-recovery"), 8);
  EXPECT_EQ(Figure(r, "time_to_recover_ok-fault"), 0);
  EXPECT_EQ(Figure(r, "time_to_recover_never"), -1);
}

TEST(GatesTest, LongestGapRedOverItsBudgetWhichDefaultsToTheOutageBudget) {
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(30);
  for (int i = 10; i < 16; ++i) s[i] = {100, 0, 100, 0};  // last success 9.99 s, next 16.0 s
  sc.timeline = MakeTimeline(s);
  GateResult r = GateNamed(EvaluateGates(sc.inputs), kLongestGap);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "6.01 s without a success from 9.99 s (budget 5 s)");
  EXPECT_NEAR(Figure(r, "p1_longest_gap_ms"), 6010, 0.01);
  EXPECT_NEAR(Figure(r, "p1_longest_gap_start_ms"), 9990, 0.01);
  EXPECT_EQ(Figure(r, "max_gap_seconds"), 5);  // unset: max_outage_seconds
  sc.inputs.budgets.max_gap_seconds = 6.5;
  r = GateNamed(EvaluateGates(sc.inputs), kLongestGap);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_EQ(r.message, "6.01 s without a success from 9.99 s (budget 6.5 s)");
}

TEST(GatesTest, LongestGapRedOnASubSecondStallThatWholeSecondsCallNoOutage) {
  // 1.3 s without a success, straddling seconds 10 and 11, each of which still saw a few successes.
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(20);
  s[10] = {100, 0, 100, 0};
  s[11] = {100, 0, 100, 0};
  sc.timeline = MakeTimeline(s);
  for (int ms = 10'000; ms < 10'500; ms += 10) sc.timeline.RecordOkCompletion(std::int64_t{ms} * 1'000'000);
  for (int ms = 11'800; ms < 12'000; ms += 10) sc.timeline.RecordOkCompletion(std::int64_t{ms} * 1'000'000);
  sc.inputs.budgets.max_gap_seconds = 1;
  const std::vector<GateResult> results = EvaluateGates(sc.inputs);
  EXPECT_TRUE(GateNamed(results, kLongestOutage).passed);
  // The whole-second gate says whole seconds and names the duration: never a bare "0 s".
  EXPECT_EQ(GateNamed(results, kLongestOutage).message,
            "0 whole seconds without any success (budget 5 s); the longest gap to the ms: 1.31 s without a success from "
            "10.49 s (p1-longest-gap)");
  const GateResult& r = GateNamed(results, kLongestGap);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "1.31 s without a success from 10.49 s (budget 1 s)");
}

TEST(GatesTest, LongestGapRedWhenTheServiceIsDeadAtTheEnd) {
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(20);
  for (int i = 14; i < 20; ++i) s[i] = {100, 0, 100, 0};
  sc.timeline = MakeTimeline(s);
  sc.inputs.faults = {};
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kLongestGap);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "6 s without a success from 13.99 s (budget 5 s)");  // to the last arrival, 19.99 s
}

TEST(GatesTest, TimeToRecoverInsideTheFaultWindowIsMeasuredFromTheApply) {
  // Primary killed at 10.25 s and restarted at 20.5 s; the failover brought success back at 12.4 s.
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(30);
  s[10] = {100, 20, 80, 0};
  s[11] = {100, 0, 100, 0};
  sc.timeline = MakeTimeline(s);
  sc.timeline.At(12).first_ok_of_intended_ns = 12'400'000'000;
  sc.inputs.faults = {{"primary-kill", 10, 20, 10'250, 20'500}};
  GateResult r = GateNamed(EvaluateGates(sc.inputs), kTimeToRecover);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_EQ(r.message,
            "primary-kill 0 s after the revert and 2.15 s after the apply (recovered inside the fault window) "
            "(budget 5 s to 3 s in a row at >= 99% ok)");
  EXPECT_EQ(Figure(r, "time_to_recover_ms_round_1"), 0);
  EXPECT_NEAR(Figure(r, "time_to_recover_from_apply_ms_round_1"), 2150, 0.01);
  EXPECT_EQ(Figure(r, "time_to_recover_primary-kill"), 0);  // whole seconds from the end, as before

  sc.inputs.budgets.max_recovery_seconds = 2;  // the failover took longer than that
  r = GateNamed(EvaluateGates(sc.inputs), kTimeToRecover);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.message.find("2.15 s after the apply (recovered inside the fault window, over budget)"),
            std::string::npos)
      << r.message;
}

TEST(GatesTest, TimeToRecoverOutsideTheWindowIsJudgedFromTheRevert) {
  // A partition that keeps the service down until 1.6 s after its revert at 15.4 s.
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(30);
  for (int i = 10; i < 17; ++i) s[i] = {100, 0, 100, 0};
  sc.timeline = MakeTimeline(s);
  sc.inputs.faults = {{"partition", 10, 15, 10'100, 15'400}};
  sc.inputs.budgets.max_outage_seconds = 10;
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kTimeToRecover);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_EQ(r.message, "partition 1.6 s after the revert and 6.9 s after the apply (budget 5 s to 3 s in a row at >= 99% ok)");
  EXPECT_NEAR(Figure(r, "time_to_recover_ms_round_1"), 1600, 0.01);
  EXPECT_NEAR(Figure(r, "time_to_recover_from_apply_ms_round_1"), 6900, 0.01);
}

TEST(GatesTest, EveryRoundKeepsItsOwnTimeToRecoverFigures) {
  // Three kills of the same fault: 1 s, 3 s and never. One key per round, with min and max.
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(40);
  s[5] = {100, 0, 100, 0};
  for (int i = 15; i < 18; ++i) s[i] = {100, 0, 100, 0};
  for (int i = 30; i < 40; ++i) s[i] = {100, 0, 100, 0};
  sc.timeline = MakeTimeline(s);
  sc.inputs.faults = {{"primary-kill", 5, 5, 5'000, 5'000},
                      {"primary-kill", 15, 15, 15'000, 15'000},
                      {"primary-kill", 30, 30, 30'000, 30'000}};
  GateResult r = GateNamed(EvaluateGates(sc.inputs), kTimeToRecover);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "primary-kill (round 1) 1 s, primary-kill (round 2) 3 s, primary-kill (round 3) did not recover (fault "
            "ended at 30 s, timeline ends at second 40) (budget 5 s to 3 s in a row at >= 99% ok)");
  EXPECT_EQ(Figure(r, "time_to_recover_ms_round_1"), 1000);
  EXPECT_EQ(Figure(r, "time_to_recover_ms_round_2"), 3000);
  EXPECT_EQ(Figure(r, "time_to_recover_ms_round_3"), -1);
  EXPECT_EQ(Figure(r, "time_to_recover_ms_min"), 1000);
  EXPECT_EQ(Figure(r, "time_to_recover_ms_max"), -1);  // a round that never recovered
  EXPECT_EQ(Figure(r, "time_to_recover_from_apply_ms_round_2"), 3000);  // an action: apply == revert

  sc.inputs.faults.pop_back();
  r = GateNamed(EvaluateGates(sc.inputs), kTimeToRecover);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_EQ(Figure(r, "time_to_recover_ms_min"), 1000);
  EXPECT_EQ(Figure(r, "time_to_recover_ms_max"), 3000);
  std::set<std::string> names;
  for (const auto& [name, value] : r.figures) {
    EXPECT_TRUE(names.insert(name).second || name == "time_to_recover_primary-kill") << "duplicate figure " << name;
  }
}

TEST(GatesTest, GeneratorLimitedRedOnPoolTimeoutsEvenWithoutAReason) {
  Scenario sc;
  sc.health.pool_waits = 40;
  sc.health.pool_wait_ms_total = 12'000;
  sc.health.pool_wait_timeouts = 7;
  sc.health.generator_failed = 7;
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kGeneratorLimited);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "generator-limited (attempts timed out waiting for a free connection in the generator's own pool): "
            "achieved 100/s of 100/s offered, dispatch lag p99 2.5 ms, max 7 ms, 40 attempts waited for a "
            "connection in the generator's pool (12 s in total), 7 timed out still waiting, 0 hit the deadline "
            "after waiting, 7 generator-side failures; the figures describe the generator, not the service");
  EXPECT_EQ(Figure(r, "pool_wait_timeouts"), 7);
  EXPECT_EQ(Figure(r, "generator_failed"), 7);
  sc.health.pool_wait_timeouts = 0;
  sc.health.generator_failed = 0;  // waits that ended in time are reported, not red
  EXPECT_TRUE(GateNamed(EvaluateGates(sc.inputs), kGeneratorLimited).passed);
}

TEST(GatesTest, TimeToRecoverWithoutFaultRoundsIsNotApplicable) {
  Scenario sc;
  sc.inputs.faults = {};
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kTimeToRecover);
  EXPECT_TRUE(r.passed);
  EXPECT_TRUE(r.not_applicable);
  EXPECT_EQ(r.message, "no fault round to recover from");
}

TEST(GatesTest, P2RedOnChangedValue) {
  Scenario sc;
  sc.verification.p2_violations = 1;
  sc.verification.violations = {
      {"alice", "p-17", "p-99", "p-17", 5, Violation::Property::kP2Stability, Violation::Kind::kChanged},
      P3("bob", "p-3", Violation::Kind::kNotFound)};
  sc.verification.p3_violations = 1;
  const std::vector<GateResult> results = EvaluateGates(sc.inputs);
  const GateResult& r = GateNamed(results, kPromiseStability);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "1 promises changed on re-issue (of 500 checked): 'alice' acknowledged 'p-17' now 'p-99'");
  EXPECT_EQ(Figure(r, "p2_violations"), 1);
}

TEST(GatesTest, P3RedNamesLostKeysNotFoundVersusWrongKey) {
  Scenario sc;
  sc.verification.violations = {P3("alice", "p-17", Violation::Kind::kNotFound),
                                P3("bob", "p-3", Violation::Kind::kWrongKey, "eve")};
  sc.verification.p3_violations = 2;
  const std::vector<GateResult> results = EvaluateGates(sc.inputs);
  const GateResult& r = GateNamed(results, kReverseLookup);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "2 promises lost (1 NotFound, 1 wrong key; of 500 checked): 'alice' -> 'p-17' NotFound, "
            "'bob' -> 'p-3' wrong key (read back 'eve')");
  EXPECT_EQ(Figure(r, "p3_not_found"), 1);
  EXPECT_EQ(Figure(r, "p3_wrong_key"), 1);
  EXPECT_TRUE(GateNamed(results, kPromiseStability).passed);
}

TEST(GatesTest, P3NamesAtMostTenKeys) {
  Scenario sc;
  for (int i = 0; i < 12; ++i) {
    sc.verification.violations.push_back(P3("k" + std::to_string(i), "v" + std::to_string(i), Violation::Kind::kNotFound));
  }
  sc.verification.p3_violations = 12;
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kReverseLookup);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.message.find("'k9' -> 'v9' NotFound, and 2 more"), std::string::npos) << r.message;
  EXPECT_EQ(r.message.find("'k10'"), std::string::npos) << r.message;
}

TEST(GatesTest, ShedOutweighsFailuresRedWhenTheCeilingShapedTheRun) {
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(20);
  s[10] = {100, 50, 20, 30};
  sc.timeline = MakeTimeline(s);
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kShedOutweighsFailures);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "shed 30 >= failed 20: the in-flight ceiling shaped the result, not the service; raise "
            "RESILIENCE_MAX_IN_FLIGHT above rate x deadline or lower the rate");
  EXPECT_EQ(Figure(r, "total_shed"), 30);
  EXPECT_EQ(Figure(r, "total_failed"), 20);
}

TEST(GatesTest, ShedOutweighsFailuresBoundaries) {
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(20);
  s[10] = {100, 60, 20, 20};  // equal: red
  sc.timeline = MakeTimeline(s);
  EXPECT_FALSE(GateNamed(EvaluateGates(sc.inputs), kShedOutweighsFailures).passed);
  s[10] = {100, 59, 21, 20};  // fewer shed than failed: green
  sc.timeline = MakeTimeline(s);
  EXPECT_TRUE(GateNamed(EvaluateGates(sc.inputs), kShedOutweighsFailures).passed);
  sc.timeline = MakeTimeline(Healthy(20));  // neither: green
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kShedOutweighsFailures);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.message, "shed 0 < failed 0");
}

TEST(GatesTest, GeneratorLimitedRedWithReasonAndFigures) {
  Scenario sc;
  sc.health.generator_limited = true;
  sc.health.reason = "dispatch lag p99 250 ms > 50 ms";
  sc.health.achieved_rate = 61.5;
  sc.health.lag_p99_ms = 250;
  sc.health.lag_max_ms = 900;
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kGeneratorLimited);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "generator-limited (dispatch lag p99 250 ms > 50 ms): achieved 61.5/s of 100/s offered, dispatch lag "
            "p99 250 ms, max 900 ms; the figures describe the generator, not the service");
  EXPECT_EQ(Figure(r, "achieved_rate"), 61.5);
  EXPECT_EQ(Figure(r, "lag_p99_ms"), 250);
  EXPECT_EQ(Figure(r, "lag_max_ms"), 900);
}

TEST(GatesTest, GeneratorLimitedNamesLateCompletions) {
  Scenario sc;
  sc.health.generator_limited = true;
  sc.health.reason = "900 of 1000 calls finished more than 500 ms past their deadline";
  sc.health.achieved_rate = 100;
  sc.health.lag_p99_ms = 2;
  sc.health.lag_max_ms = 5;
  sc.health.late_completions = 900;
  sc.health.completion_lag_max_ms = 7000;
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kGeneratorLimited);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "generator-limited (900 of 1000 calls finished more than 500 ms past their deadline): achieved 100/s of "
            "100/s offered, dispatch lag p99 2 ms, max 5 ms, 900 calls finished late past their deadline (latest "
            "7000 ms); the figures describe the generator, not the service");
  EXPECT_EQ(Figure(r, "late_completions"), 900);
  EXPECT_EQ(Figure(r, "completion_lag_max_ms"), 7000);
}

TEST(GatesTest, GeneratorLimitedRedWhenHealthMissing) {
  Scenario sc;
  sc.inputs.health = nullptr;
  const GateResult r = GateNamed(EvaluateGates(sc.inputs), kGeneratorLimited);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "no generator health recorded: cannot tell the generator's limits from the service's");
}

TEST(GatesTest, EveryViolationIsReportedTogether) {
  Scenario sc;
  std::vector<SecondCounts> s = Healthy(30);
  for (int i = 10; i < 20; ++i) s[i] = {100, 0, 10, 90};  // 10 s outage, mostly shed
  for (int i = 20; i < 30; ++i) s[i] = {100, 0, 0, 100};  // never recovers, all shed
  sc.timeline = MakeTimeline(s);
  sc.inputs.faults = {{"primary-kill", 10, 12}};
  sc.health.generator_limited = true;
  sc.health.reason = "cpu saturated";
  sc.verification.p2_violations = 1;
  sc.verification.violations = {
      {"alice", "p-1", "p-2", "p-1", 5, Violation::Property::kP2Stability, Violation::Kind::kChanged}};
  const std::vector<GateResult> results = EvaluateGates(sc.inputs);
  EXPECT_FALSE(AllPassed(results));
  const std::vector<std::string> reasons = FailureReasons(results);
  ASSERT_EQ(reasons.size(), 7u) << FormatGateReport(results);
  EXPECT_EQ(reasons[0], "p1-longest-gap: 20 s without a success from 9.99 s (budget 5 s)");
  EXPECT_EQ(reasons[1], "p1-longest-outage: 20 whole seconds without any success from second 10 (budget 5 s); the "
                        "longest gap to the ms: 20 s without a success from 9.99 s (p1-longest-gap)");
  EXPECT_EQ(reasons[2], "p1-unavailable-seconds: 20 s failure-equivalent (budget 10 s)");
  EXPECT_EQ(reasons[3].rfind("time-to-recover: primary-kill did not recover", 0), 0u) << reasons[3];
  EXPECT_EQ(reasons[4].rfind("p2-promise-stability: 1 promises changed", 0), 0u) << reasons[4];
  EXPECT_EQ(reasons[5].rfind("shed-outweighs-failures: shed 1900 >= failed 100:", 0), 0u) << reasons[5];
  EXPECT_EQ(reasons[6].rfind("generator-limited: generator-limited (cpu saturated)", 0), 0u) << reasons[6];
  const std::string report = FormatGateReport(results);
  EXPECT_NE(report.find("FAIL p1-longest-gap: 20 s without a success from 9.99 s (budget 5 s)\nFAIL p1-longest-outage: "),
            std::string::npos);
  EXPECT_NE(report.find("PASS traffic-served:"), std::string::npos);
}

TEST(InFlightCeilingTest, EnoughAtExactlyRateTimesDeadline) {
  EXPECT_EQ(CheckInFlightCeiling(400, 2, 800), std::nullopt);
  EXPECT_EQ(CheckInFlightCeiling(400, 2, 5000), std::nullopt);
  EXPECT_EQ(CheckInFlightCeiling(0, 2, 0), std::nullopt);
}

TEST(InFlightCeilingTest, BelowRateTimesDeadlineIsAnError) {
  const std::optional<std::string> error = CheckInFlightCeiling(400, 2, 799);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error,
            "RESILIENCE_MAX_IN_FLIGHT=799 is below peak rate x call deadline = 400/s x 2 s = 800: the in-flight "
            "ceiling would fire before the service does and its shedding would be counted as the service's "
            "failure; raise RESILIENCE_MAX_IN_FLIGHT to at least 800 or lower the rate");
}

TEST(InFlightCeilingTest, FractionalProductRoundsTheAdviceUp) {
  const std::optional<std::string> error = CheckInFlightCeiling(150, 0.25, 37);  // 37.5 needed
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("= 150/s x 0.25 s = 37.5:"), std::string::npos) << *error;
  EXPECT_NE(error->find("to at least 38 or"), std::string::npos) << *error;
  EXPECT_EQ(CheckInFlightCeiling(150, 0.25, 38), std::nullopt);
}

}  // namespace
}  // namespace aftershock::gates

namespace aftershock::gates {
namespace {

using Outcome = FaultEffect::Outcome;

GateResult FaultGate(std::size_t planned, std::vector<FaultEffect> effects) {
  GateInputs in;
  in.planned_faults = planned;
  in.fault_effects = std::move(effects);
  in.require_promises = false;
  return GateNamed(EvaluateGates(in), kFaultTookEffect);
}

TEST(FaultTookEffectTest, NotApplicableWithoutFaults) {
  const GateResult r = FaultGate(0, {});
  EXPECT_TRUE(r.passed);
  EXPECT_TRUE(r.not_applicable);
  EXPECT_EQ(r.message, "the scenario has no faults");
}

TEST(FaultTookEffectTest, GreenWhenEveryRoundAndRevertIsConfirmed) {
  const GateResult r = FaultGate(1, {{"primary-kill", 1, false, Outcome::kConfirmed, "leader pg-b (was pg-a) after 7.4 s", 22.4},
                                     {"primary-kill", 2, false, Outcome::kConfirmed, "leader pg-c (was pg-b) after 6.9 s", 51.0}});
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_EQ(r.message,
            "2 rounds confirmed, 0 not, 0 skipped; 0 reverts clean, 0 with residue; 0 not confirmable (primary-kill round 1: "
            "leader pg-b (was pg-a) after 7.4 s; primary-kill round 2: leader pg-c (was pg-b) after 6.9 s)");
  EXPECT_EQ(Figure(r, "fault_rounds_confirmed"), 2);
}

TEST(FaultTookEffectTest, RedNamingTheRoundThatNeverTookEffectAndTheRevertThatLeftResidue) {
  const GateResult r = FaultGate(2, {{"stall", 1, false, Outcome::kConfirmed, "the target reports the stall", 2.0},
                                     {"stall", 1, true, Outcome::kConfirmed, "no defect reported", 4.1},
                                     {"db-partition", 2, false, Outcome::kNotConfirmed, "the probe through pg-a answered", 9.0},
                                     {"db-partition", 2, true, Outcome::kNotConfirmed, "the probe through pg-a hangs", 14.0}});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "db-partition round 2: not confirmed: the probe through pg-a answered; db-partition round 2 revert: "
            "residue: the probe through pg-a hangs (1 rounds confirmed, 1 not, 0 skipped; 1 reverts clean, 1 with residue; 0 "
            "not confirmable): a planned fault round that did not happen or did not take effect tested nothing");
  EXPECT_EQ(Figure(r, "fault_rounds_unconfirmed"), 1);
  EXPECT_EQ(Figure(r, "fault_reverts_residue"), 1);
}

TEST(FaultTookEffectTest, AnExplicitOptOutPassesWithItsReasonShown) {
  const GateResult r = FaultGate(1, {{"external", 1, false, Outcome::kNotConfirmable, "the effect is outside", 1.0}});
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.message,
            "0 rounds confirmed, 0 not, 0 skipped; 0 reverts clean, 0 with residue; 1 not confirmable; external round 1: not "
            "confirmable: the effect is outside");
}

// One confirmed round beside a planned round that never happened is red, naming the round and why.
TEST(FaultTookEffectTest, ASkippedRoundBesideAConfirmedOneIsRedNamingTheRoundAndWhy) {
  GateInputs in;
  in.planned_faults = 2;
  in.fault_effects = {{"db-partition", 1, false, Outcome::kConfirmed, "the probe through pg-a hangs after 0.3 s", 5.3}};
  in.skipped_fault_rounds = {{"db-partition", 2, "the scheduler stopped before it (the plan had not ended 70 s after "
                                                 "the load: Finish's timeout)"}};
  in.require_promises = false;
  const GateResult r = GateNamed(EvaluateGates(in), kFaultTookEffect);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "db-partition round 2: did not happen: the scheduler stopped before it (the plan had not ended 70 s after "
            "the load: Finish's timeout) (1 rounds confirmed, 0 not, 1 skipped; 0 reverts clean, 0 with residue; 0 "
            "not confirmable): a planned fault round that did not happen or did not take effect tested nothing");
  EXPECT_EQ(Figure(r, "fault_rounds_skipped"), 1);
  in.skipped_fault_rounds.clear();
  EXPECT_TRUE(GateNamed(EvaluateGates(in), kFaultTookEffect).passed);
}

TEST(FaultTookEffectTest, PlannedFaultsWithoutAnyConfirmationAreRed) {
  const GateResult r = FaultGate(3, {});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "3 faults planned but no round was applied and confirmed");
}

GateResult LeaseGate(std::vector<FaultLeaseAccount> leases) {
  GateInputs in;
  in.fault_leases = std::move(leases);
  in.require_promises = false;
  return GateNamed(EvaluateGates(in), kFaultLeaseHeld);
}

TEST(FaultLeaseHeldTest, NotApplicableWhenNoFaultHeldALease) {
  const GateResult r = LeaseGate({});
  EXPECT_TRUE(r.passed);
  EXPECT_TRUE(r.not_applicable);
  EXPECT_EQ(r.message, "no fault held a lease");
}

TEST(FaultLeaseHeldTest, GreenWhenNoExpiryHappenedDuringTheRun) {
  const GateResult r = LeaseGate({{.lease = "cluster supervisor", .expiries_before = 2, .expiries_after = 2}});
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_FALSE(r.not_applicable);
  EXPECT_EQ(r.message, "held throughout: cluster supervisor");
  EXPECT_EQ(Figure(r, "fault_lease_expiries"), 0);
}

// A 20 s partition whose lease ran out after 5 s was reverted mid-run: judging the run as if the
// partition had lasted would be a false green.
TEST(FaultLeaseHeldTest, AnExpiryDuringTheRunIsRedNamingWhenAndWhatWasReverted) {
  const GateResult r = LeaseGate({{.lease = "cluster supervisor",
                                   .expiries_before = 2,
                                   .expiries_after = 3,
                                   .last_expiry_seconds = 12.5,
                                   .last_expiry = "fault lease of 'ha_suite pr/db-partition' expired; reverted "
                                                  "database link faults on pg-a"}});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "cluster supervisor's fault lease expired 1 time(s) during the run (the last at second 12.5: fault lease "
            "of 'ha_suite pr/db-partition' expired; reverted database link faults on pg-a): the lease's owner "
            "reverted the faults mid-run, so the run did not test what it planned");
  EXPECT_EQ(Figure(r, "fault_lease_expiries"), 1);
}

TEST(FaultLeaseHeldTest, AReadingThatFailedIsRedNotGreen) {
  const GateResult r = LeaseGate({{.lease = "cluster supervisor", .read_error = "connection refused"}});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message,
            "cluster supervisor: cannot tell whether it held: connection refused: a lease that cannot be read may "
            "have expired unseen");
}

}  // namespace
}  // namespace aftershock::gates

namespace aftershock::gates {
namespace {

using internal::GateNamed;

// A verifier that claimed stability without re-issuing decided no P2: the gate is N/A and says why,
// never "PASS 0 changed of N checked".
TEST(PromiseStabilityTest, StabilityClaimedWithoutAReissueIsNotApplicableNamingIt) {
  ledger::VerificationReport v;
  v.sample_size = 3;
  v.checked = 3;
  v.p3_decided = 3;
  v.stability_without_reissue = 3;
  GateInputs in;
  in.verification = &v;
  in.ledger_acknowledged = 3;
  const GateResult r = GateNamed(EvaluateGates(in), kPromiseStability);
  EXPECT_TRUE(r.not_applicable);
  EXPECT_EQ(r.message,
            "the verifier checks no re-issue stability (decided for 0 of 3 sampled promises, 3 checked); 3 checks "
            "claimed stability without a re-issue's answer (PromiseCheck::SetReissued), which decides nothing");
}

}  // namespace
}  // namespace aftershock::gates

namespace aftershock::gates {
namespace {

using internal::GateNamed;

// An overload by design is declared, with its reason, instead of a budget as long as the run.
TEST(AvailabilityNotJudgedTest, TheP1GatesReadNotApplicableWithTheReason) {
  GateInputs in;
  in.require_promises = false;
  in.availability_not_judged = "the overload stage is an overload by design";
  const std::vector<GateResult> results = EvaluateGates(in);
  for (std::string_view name : {kLongestOutage, kLongestGap, kUnavailableSeconds}) {
    const GateResult r = GateNamed(results, name);
    EXPECT_TRUE(r.not_applicable) << name;
    EXPECT_EQ(r.message, "the scenario does not judge availability: the overload stage is an overload by design");
  }
  in.availability_not_judged.clear();
  EXPECT_FALSE(GateNamed(EvaluateGates(in), kLongestOutage).not_applicable);
}

}  // namespace
}  // namespace aftershock::gates
