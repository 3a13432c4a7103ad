// The "for" logic of a stop condition, with readings and times given by the test: comparators, the
// hold, failed readings ("cannot see") with and without breach_on_failure, readings with nothing to
// judge, and that only the first breach counts.
#include "framework/safety/stop_condition.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::safety {
namespace {

using ::testing::HasSubstr;
using std::chrono::milliseconds;
using std::chrono::seconds;

StopCondition Condition(Comparator comparator, double threshold, milliseconds hold, bool breach_on_failure = true) {
  return SignalCondition({.name = "probe", .comparator = comparator, .threshold = threshold, .hold = hold,
                          .breach_on_failure = breach_on_failure},
                         "the probe", [] { return Reading::Nothing(); });
}

TEST(Comparator, ParsesAndCompares) {
  EXPECT_EQ(ParseComparator(">"), Comparator::kAbove);
  EXPECT_EQ(ParseComparator(">="), Comparator::kAtLeast);
  EXPECT_EQ(ParseComparator("<"), Comparator::kBelow);
  EXPECT_EQ(ParseComparator("<="), Comparator::kAtMost);
  EXPECT_EQ(ParseComparator("=>"), std::nullopt);
  EXPECT_EQ(ParseComparator("=="), std::nullopt);
  EXPECT_EQ(ComparatorText(Comparator::kAtMost), "<=");
  EXPECT_TRUE(Holds(Comparator::kAbove, 2, 1));
  EXPECT_FALSE(Holds(Comparator::kAbove, 1, 1));
  EXPECT_TRUE(Holds(Comparator::kAtLeast, 1, 1));
  EXPECT_TRUE(Holds(Comparator::kBelow, 0.1, 0.2));
  EXPECT_FALSE(Holds(Comparator::kBelow, 0.2, 0.2));
  EXPECT_TRUE(Holds(Comparator::kAtMost, 0.2, 0.2));
  EXPECT_FALSE(Holds(Comparator::kAbove, std::nan(""), 0));
  EXPECT_FALSE(Holds(Comparator::kBelow, std::nan(""), 0));
}

TEST(ConditionTracker, WithoutAHoldTheFirstReadingThatHoldsBreaches) {
  const StopCondition c = Condition(Comparator::kAbove, 0.05, milliseconds(0));
  ConditionTracker t(c);
  const auto t0 = Clock::now();
  EXPECT_FALSE(t.Observe(Reading::Of(0.01), t0));
  const std::optional<Breach> b = t.Observe(Reading::Of(0.2, "20 of 100 calls"), t0 + milliseconds(500));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->condition, "probe");
  EXPECT_EQ(b->value, 0.2);
  EXPECT_EQ(b->at, t0 + milliseconds(500));
  EXPECT_EQ(b->reason, "probe: the probe = 0.2 > 0.05 (20 of 100 calls)");
}

TEST(ConditionTracker, TheComparisonMustHoldOnEndForTheHold) {
  const StopCondition c = Condition(Comparator::kAbove, 85, seconds(30));
  ConditionTracker t(c);
  const auto t0 = Clock::now();
  EXPECT_FALSE(t.Observe(Reading::Of(90), t0));
  EXPECT_FALSE(t.Observe(Reading::Of(91), t0 + seconds(20)));
  EXPECT_FALSE(t.Observe(Reading::Of(80), t0 + seconds(25)));  // dips: the hold starts again
  EXPECT_FALSE(t.Observe(Reading::Of(90), t0 + seconds(26)));
  EXPECT_FALSE(t.Observe(Reading::Of(90), t0 + seconds(55)));  // 29 s on end
  const std::optional<Breach> b = t.Observe(Reading::Of(92), t0 + seconds(56));
  ASSERT_TRUE(b);
  EXPECT_THAT(b->reason, HasSubstr("= 92 > 85 held for 30.0 s"));
  EXPECT_EQ(b->at, t0 + seconds(56));
}

TEST(ConditionTracker, ANothingReadingBreaksTheHoldButIsNoFailure) {
  const StopCondition c = Condition(Comparator::kAbove, 0.05, seconds(2));
  ConditionTracker t(c);
  const auto t0 = Clock::now();
  EXPECT_FALSE(t.Observe(Reading::Of(0.5), t0));
  EXPECT_FALSE(t.Observe(Reading::Nothing("no calls"), t0 + seconds(1)));
  EXPECT_FALSE(t.Observe(Reading::Of(0.5), t0 + seconds(2)));
  EXPECT_FALSE(t.Observe(Reading::Of(0.5), t0 + seconds(3)));
  EXPECT_TRUE(t.Observe(Reading::Of(0.5), t0 + seconds(4)));
  EXPECT_EQ(t.status().failures, 0u);
  EXPECT_EQ(t.status().readings, 5u);
}

TEST(ConditionTracker, AFailingReadingLongerThanTheHoldIsABreachItCannotSee) {
  const StopCondition c = Condition(Comparator::kBelow, 0.2, seconds(10));
  ConditionTracker t(c);
  const auto t0 = Clock::now();
  EXPECT_FALSE(t.Observe(Reading::Failed("connection refused"), t0));
  EXPECT_FALSE(t.Observe(Reading::Failed("connection refused"), t0 + seconds(10)));  // not longer yet
  const std::optional<Breach> b = t.Observe(Reading::Failed("connection refused"), t0 + seconds(11));
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->value);
  EXPECT_EQ(b->reason, "probe: cannot see the probe for 11.0 s (last error: connection refused)");
  EXPECT_EQ(t.status().failures, 3u);
  EXPECT_EQ(t.status().last_error, "connection refused");
}

TEST(ConditionTracker, WithoutAHoldOneFailedReadingAloneIsNotABreachTwoInARowAre) {
  const StopCondition c = Condition(Comparator::kAbove, 1, milliseconds(0));
  ConditionTracker t(c);
  const auto t0 = Clock::now();
  EXPECT_FALSE(t.Observe(Reading::Failed("timeout"), t0));
  EXPECT_FALSE(t.Observe(Reading::Of(0), t0 + milliseconds(500)));  // seen again: the failure streak ends
  EXPECT_FALSE(t.Observe(Reading::Failed("timeout"), t0 + milliseconds(1000)));
  EXPECT_TRUE(t.Observe(Reading::Failed("timeout"), t0 + milliseconds(1500)));
}

TEST(ConditionTracker, FailuresOnlyCountWhenTheConditionSaysSo) {
  const StopCondition c = Condition(Comparator::kAbove, 1, seconds(1), /*breach_on_failure=*/false);
  ConditionTracker t(c);
  const auto t0 = Clock::now();
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(t.Observe(Reading::Failed("no series"), t0 + seconds(i)));
  EXPECT_EQ(t.status().failures, 10u);
  EXPECT_FALSE(t.breached());
  // It still breaches on a value.
  EXPECT_FALSE(t.Observe(Reading::Of(5), t0 + seconds(11)));
  EXPECT_TRUE(t.Observe(Reading::Of(5), t0 + seconds(12)));
}

TEST(ConditionTracker, AFailedReadingBreaksAPendingHold) {
  const StopCondition c = Condition(Comparator::kAbove, 1, seconds(2), /*breach_on_failure=*/false);
  ConditionTracker t(c);
  const auto t0 = Clock::now();
  EXPECT_FALSE(t.Observe(Reading::Of(5), t0));
  EXPECT_FALSE(t.Observe(Reading::Failed("timeout"), t0 + seconds(1)));
  EXPECT_FALSE(t.Observe(Reading::Of(5), t0 + seconds(2)));  // a new hold from here
  EXPECT_FALSE(t.Observe(Reading::Of(5), t0 + seconds(3)));
  EXPECT_TRUE(t.Observe(Reading::Of(5), t0 + seconds(4)));
}

TEST(ConditionTracker, OnlyTheFirstBreachIsReported) {
  const StopCondition c = Condition(Comparator::kAbove, 0, milliseconds(0));
  ConditionTracker t(c);
  const auto t0 = Clock::now();
  EXPECT_TRUE(t.Observe(Reading::Of(1), t0));
  EXPECT_FALSE(t.Observe(Reading::Of(2), t0 + seconds(1)));
  EXPECT_FALSE(t.Observe(Reading::Failed("x"), t0 + seconds(2)));
  EXPECT_FALSE(t.Observe(Reading::Failed("x"), t0 + seconds(3)));
  EXPECT_TRUE(t.breached());
  EXPECT_EQ(t.status().readings, 4u);
}

TEST(PromqlCondition, AnUnreachablePrometheusIsAFailedReading) {
  // Port 1 on loopback: nothing listens there.
  const StopCondition c = PromqlCondition({.name = "cpu", .comparator = Comparator::kAbove, .threshold = 85},
                                          "up", alerting::PrometheusClient("127.0.0.1", 1, milliseconds(500)));
  const Reading r = c.evaluate();
  EXPECT_FALSE(r.value);
  EXPECT_FALSE(r.error.empty());
  EXPECT_EQ(c.what, "up");
}

}  // namespace
}  // namespace aftershock::safety
