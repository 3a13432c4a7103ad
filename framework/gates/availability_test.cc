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

// Sub-second: successes completing at the given run-clock milliseconds, load offered over [begin, end].
metrics::LoadTimeline Completions(const std::vector<double>& ok_ms, double begin_ms, double end_ms) {
  metrics::LoadTimeline t;
  for (auto s = static_cast<std::int64_t>(begin_ms / 1000); s <= static_cast<std::int64_t>(end_ms / 1000); ++s) {
    t.At(s).offered = 100;
  }
  t.RecordOffered(static_cast<std::int64_t>(begin_ms * 1e6));
  t.RecordOffered(static_cast<std::int64_t>(end_ms * 1e6));
  for (double ms : ok_ms) t.RecordOkCompletion(static_cast<std::int64_t>(ms * 1e6));
  return t;
}

// Every 10 ms from `from_ms` (inclusive) to `to_ms` (exclusive).
std::vector<double> Every10Ms(double from_ms, double to_ms) {
  std::vector<double> out;
  for (double ms = from_ms; ms < to_ms; ms += 10) out.push_back(ms);
  return out;
}

TEST(LongestSuccessGapTest, SeesAGapThatWholeSecondsMiss) {
  // Both seconds 10 and 11 still see successes, so the whole-second outage is 0 s; the gap is 1.3 s.
  std::vector<double> ok = Every10Ms(0, 10'500);
  for (double ms : Every10Ms(11'800, 20'000)) ok.push_back(ms);
  const auto t = Completions(ok, 0, 19'995);
  const SuccessGap g = LongestSuccessGap(t);
  EXPECT_NEAR(g.ms, 1'310, 0.01);
  EXPECT_NEAR(g.start_ms, 10'490, 0.01);
  EXPECT_EQ(LongestOutage(t).seconds, 0);
}

TEST(LongestSuccessGapTest, FindsTheLongestGapInsideOneSecond) {
  std::vector<double> ok = {5'000, 5'100, 5'900, 5'950};  // 800 ms between 5.1 and 5.9
  const SuccessGap g = LongestSuccessGap(Completions(ok, 5'000, 5'950));
  EXPECT_NEAR(g.ms, 800, 0.01);
  EXPECT_NEAR(g.start_ms, 5'100, 0.01);
}

TEST(LongestSuccessGapTest, CountsTheEdgesOfOfferedLoad) {
  // Dead at the start: from the first arrival (1 s) to the first success (3.5 s).
  SuccessGap g = LongestSuccessGap(Completions(Every10Ms(3'500, 10'000), 1'000, 9'995));
  EXPECT_NEAR(g.ms, 2'500, 0.01);
  EXPECT_NEAR(g.start_ms, 1'000, 0.01);
  // Dead at the end: from the last success (6 s) to the last arrival (9.995 s) must not look fine.
  g = LongestSuccessGap(Completions(Every10Ms(0, 6'000), 0, 9'995));
  EXPECT_NEAR(g.ms, 9'995 - 5'990, 0.01);
  EXPECT_NEAR(g.start_ms, 5'990, 0.01);
  // Nothing ever succeeded: the whole window of offered load.
  g = LongestSuccessGap(Completions({}, 200, 4'200));
  EXPECT_NEAR(g.ms, 4'000, 0.01);
}

TEST(LongestSuccessGapTest, HealthyIsTheSpacingOfCompletionsAndEmptyIsNone) {
  EXPECT_NEAR(LongestSuccessGap(MakeTimeline(Healthy(10))).ms, 10, 0.01);  // 100/s
  EXPECT_EQ(LongestSuccessGap(metrics::LoadTimeline{}).ms, 0);
  EXPECT_EQ(LongestSuccessGap(metrics::LoadTimeline{}).start_ms, -1);
}

TEST(LongestSuccessGapTest, MergedTimelinesKeepTheGapAcrossSeconds) {
  metrics::LoadTimeline a = Completions(Every10Ms(0, 2'000), 0, 4'990);
  const metrics::LoadTimeline b = Completions(Every10Ms(3'500, 5'000), 0, 4'990);
  a.Merge(b);
  EXPECT_NEAR(LongestSuccessGap(a).ms, 3'500 - 1'990, 0.01);
}

TEST(TimeToRecoverMsTest, MeasuresFromTheOriginToTheFirstSuccessOfTheStableRun) {
  const GateBudgets budgets{.recovery_success_ratio = 0.99, .recovery_stable_seconds = 3};
  auto t = MakeTimeline(Concat({Healthy(10), {{100, 0, 100, 0}, {100, 0, 100, 0}}, Healthy(10)}));
  // Calls intended in second 12 first succeeded at 12.4 s (e.g. retried until the failover).
  t.At(12).first_ok_of_intended_ns = 12'400'000'000;
  EXPECT_NEAR(*TimeToRecoverMs(t, 10'250, budgets), 2'150, 0.01);
  // From an origin after the recovery: 0, never negative.
  EXPECT_EQ(*TimeToRecoverMs(t, 15'500, budgets), 0);
  // Never stable after the origin: nullopt.
  EXPECT_EQ(TimeToRecoverMs(MakeTimeline(std::vector<SecondCounts>(5, SecondCounts{100, 0, 100, 0})), 1'000, budgets),
            std::nullopt);
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
