#include "framework/gates/gate.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/gates/gates.h"
#include "framework/gates/internal/test_gate_results.h"
#include "gtest/gtest.h"

namespace aftershock::gates {
namespace {

using internal::MakeGateResult;

std::vector<std::string> Names(const std::vector<GateResult>& results) {
  std::vector<std::string> names;
  for (const GateResult& r : results) names.push_back(r.name);
  return names;
}

GateResult Red(std::string message) { return MakeGateResult("", false, std::move(message)); }
GateResult Green(std::string message) { return MakeGateResult("", true, std::move(message)); }

TEST(GateSetTest, BuiltInGatesKeepTheReportOrder) {
  const std::vector<std::string> expected = {
      "traffic-served",         "ledger-not-empty",     "verification-decided", "p1-longest-gap",
      "p1-longest-outage",         "p1-unavailable-seconds", "time-to-recover",    "latency-p99",
      "retry-amplification",    "p2-promise-stability",
      "p3-reverse-lookup",      "shed-outweighs-failures", "generator-limited", "fault-took-effect",
      "fault-lease-held"};
  EXPECT_EQ(BuiltInGates().names(), expected);
  EXPECT_EQ(Names(EvaluateGates(GateInputs{})), expected);
}

TEST(GateSetTest, ASuiteGateIsEvaluatedAndReportedLikeABuiltInOne) {
  GateSet set = BuiltInGates();
  int calls = 0;
  set.Add("queue-drained", [&calls](const GateInputs& in) {
    ++calls;
    return in.ledger_acknowledged > 0 ? Green("0 left") : Red("17 left in the queue");
  });
  GateInputs in;
  in.require_promises = false;
  const std::vector<GateResult> results = set.Evaluate(in);
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(results.size(), 16u);
  EXPECT_EQ(results.back().name, "queue-drained");  // named by the set, not by the function
  EXPECT_NE(FormatGateReport(results).find("FAIL queue-drained: 17 left in the queue\n"), std::string::npos);
  const std::vector<std::string> reasons = FailureReasons(results);
  EXPECT_NE(std::find(reasons.begin(), reasons.end(), "queue-drained: 17 left in the queue"), reasons.end());

  in.ledger_acknowledged = 1;
  EXPECT_NE(FormatGateReport(set.Evaluate(in)).find("PASS queue-drained: 0 left\n"), std::string::npos);
}

TEST(GateSetTest, RejectsADuplicateAnEmptyNameAndANullGate) {
  GateSet set = BuiltInGates();
  try {
    set.Add("p1-longest-outage", [](const GateInputs&) { return Green(""); });
    FAIL() << "a second p1-longest-outage was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "GateSet::Add: gate 'p1-longest-outage' is already in the set");
  }
  EXPECT_THROW(set.Add("", [](const GateInputs&) { return Green(""); }), std::invalid_argument);
  EXPECT_THROW(set.Add(nullptr), std::invalid_argument);
  EXPECT_THROW(set.Add("no-function", GateFunction{}), std::invalid_argument);
  EXPECT_EQ(set.size(), 15u);
}

TEST(GateSetTest, AGateThatThrowsIsRedAndTheOthersStillRun) {
  GateSet set;
  set.Add("throws", [](const GateInputs&) -> GateResult { throw std::runtime_error("no such file: rules.yaml"); });
  set.Add("after", [](const GateInputs&) { return Green("ran"); });
  const std::vector<GateResult> results = set.Evaluate(GateInputs{});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].passed);
  EXPECT_EQ(results[0].message, "the gate's evaluation threw: no such file: rules.yaml");
  EXPECT_TRUE(results[1].passed);
}

TEST(GateSetTest, ACopiedSetIsExtendedWithoutChangingTheOriginal) {
  const GateSet base = PromiseGates();
  GateSet extended = base;
  extended.Add("extra", [](const GateInputs&) { return Green(""); });
  EXPECT_EQ(base.size(), 4u);
  EXPECT_EQ(extended.size(), 5u);
}

TEST(AppendGateResultsTest, AppendsAndRejectsADuplicateOrNamelessResult) {
  std::vector<GateResult> results = EvaluatePromiseGates(GateInputs{});
  AppendGateResults(results, {MakeGateResult("alert-fired", true, "")});
  EXPECT_EQ(results.back().name, "alert-fired");
  try {
    AppendGateResults(results, {MakeGateResult("ledger-not-empty", true, "")});
    FAIL() << "a duplicate gate name was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "gate 'ledger-not-empty' is reported twice");
  }
  EXPECT_THROW(AppendGateResults(results, {MakeGateResult("", true, "who am I")}), std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::gates
