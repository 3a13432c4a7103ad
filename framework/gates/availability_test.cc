#include "framework/gates/availability.h"

#include "framework/gates/internal/test_timeline.h"
#include "gtest/gtest.h"

namespace aftershock::gates {
namespace {

using internal::Healthy;
using internal::MakeTimeline;
using internal::SecondCounts;

std::vector<SecondCounts> Concat(std::vector<std::vector<SecondCounts>> parts) {
  std::vector<SecondCounts> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(LongestOutageTest, FindsTheLongestRunOfOfferedSecondsWithoutSuccess) {
  const SecondCounts down{100, 0, 100, 0};
  const SecondCounts shed_only{100, 0, 0, 100};
  const auto t = MakeTimeline(Concat({Healthy(2), {down, down, shed_only}, Healthy(1), {down, down}, Healthy(1)}));
  const Outage o = LongestOutage(t);
  EXPECT_EQ(o.first_second, 2);
  EXPECT_EQ(o.seconds, 3);
}

TEST(LongestOutageTest, FirstOfEqualRunsWinsAndPartialSuccessIsNoOutage) {
  const SecondCounts down{100, 0, 100, 0};
  const SecondCounts poor{100, 1, 99, 0};
  const auto t = MakeTimeline({down, down, poor, down, down});
  EXPECT_EQ(LongestOutage(t).first_second, 0);
  EXPECT_EQ(LongestOutage(t).seconds, 2);
}

TEST(LongestOutageTest, SecondWithoutOfferedLoadEndsARun) {
  const SecondCounts down{100, 0, 100, 0};
  const auto t = MakeTimeline({down, down, {0, 0, 0, 0}, down});
  EXPECT_EQ(LongestOutage(t).seconds, 2);
}

TEST(LongestOutageTest, NoneInAHealthyOrEmptyTimeline) {
  EXPECT_EQ(LongestOutage(MakeTimeline(Healthy(10))).seconds, 0);
  EXPECT_EQ(LongestOutage(MakeTimeline(Healthy(10))).first_second, -1);
  EXPECT_EQ(LongestOutage(metrics::LoadTimeline{}).seconds, 0);
}

TEST(UnavailableSecondsTest, WeighsEachSecondAgainstItsOwnOfferedLoad) {
  const auto t = MakeTimeline({{100, 90, 10, 0}, {100, 0, 50, 50}, {0, 0, 0, 0}, {200, 150, 0, 50}, {10, 10, 0, 0}});
  EXPECT_DOUBLE_EQ(UnavailableSeconds(t), 0.1 + 1.0 + 0.25);
}

TEST(UnavailableSecondsTest, TenSecondsAtTenPercentIsOneSecond) {
  const auto t = MakeTimeline(std::vector<SecondCounts>(10, SecondCounts{50, 45, 5, 0}));
  EXPECT_DOUBLE_EQ(UnavailableSeconds(t), 1.0);
  EXPECT_DOUBLE_EQ(UnavailableSeconds(MakeTimeline(Healthy(10))), 0.0);
}

TEST(TimeToRecoverTest, CountsFromFaultEndToTheStartOfAStableRun) {
  const GateBudgets budgets{.recovery_success_ratio = 0.99, .recovery_stable_seconds = 3};
  // second: 0-4 healthy, 5 half, 6 fine, 7 at 98%, 8-10 fine.
  const auto t = MakeTimeline(Concat({Healthy(5), {{100, 50, 50, 0}, {100, 100, 0, 0}, {100, 98, 2, 0}}, Healthy(3)}));
  EXPECT_EQ(TimeToRecover(t, {"kill", 3, 5}, budgets), 3.0);
}

TEST(TimeToRecoverTest, ExactlyTheRatioCountsAndImmediateRecoveryIsZero) {
  const GateBudgets budgets{.recovery_success_ratio = 0.99, .recovery_stable_seconds = 2};
  const auto t = MakeTimeline({{100, 0, 100, 0}, {100, 99, 1, 0}, {100, 99, 0, 1}});
  EXPECT_EQ(TimeToRecover(t, {"f", 0, 1}, budgets), 0.0);
}

TEST(TimeToRecoverTest, NotRecoveredWithinTheTimeline) {
  const GateBudgets budgets{.recovery_stable_seconds = 3};
  const auto t = MakeTimeline(Concat({Healthy(5), {{100, 0, 100, 0}}, Healthy(2)}));
  EXPECT_EQ(TimeToRecover(t, {"f", 5, 5}, budgets), std::nullopt);  // only 2 good seconds follow
  EXPECT_EQ(TimeToRecover(t, {"f", 9, 20}, budgets), std::nullopt);  // fault ends after the timeline
}

TEST(TimeToRecoverTest, SecondsWithoutLoadAreNoEvidenceOfRecovery) {
  const GateBudgets budgets{.recovery_stable_seconds = 2};
  const auto t = MakeTimeline({{100, 100, 0, 0}, {0, 0, 0, 0}, {100, 100, 0, 0}, {100, 100, 0, 0}});
  EXPECT_EQ(TimeToRecover(t, {"f", 0, 0}, budgets), 2.0);
}

}  // namespace
}  // namespace aftershock::gates
