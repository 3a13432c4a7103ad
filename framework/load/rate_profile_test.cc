#include "framework/load/rate_profile.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace aftershock::load {
namespace {

std::vector<Arrival> All(const RateProfile& p) {
  std::vector<Arrival> out;
  auto c = p.Begin();
  Arrival a;
  while (c.Next(a) && out.size() < 1'000'000) out.push_back(a);
  return out;
}

TEST(RateProfileTest, ConstantStageSpacesArrivalsEvenly) {
  auto p = RateProfile::Constant(200, 12);
  auto arrivals = All(p);
  ASSERT_EQ(arrivals.size(), 2400u);
  EXPECT_EQ(arrivals[0].offset.count(), 0);
  EXPECT_EQ(arrivals[1].offset.count(), 5'000'000);
  EXPECT_EQ(arrivals.back().offset.count(), 11'995'000'000);
  EXPECT_EQ(arrivals.back().sequence, 2399u);
  EXPECT_DOUBLE_EQ(p.TotalSeconds(), 12);
  EXPECT_EQ(p.ExpectedArrivals(), 2400u);
}

TEST(RateProfileTest, LinearRampFollowsTheIntegralOfItsRate) {
  // 0 -> 100/s over 10 s: 500 arrivals; the first half-time holds a quarter of them.
  auto p = RateProfile::FromStages({{.name = "ramp", .kind = StageKind::kLinearRamp, .rate_from = 0, .rate_to = 100,
                                     .duration_seconds = 10}});
  auto arrivals = All(p);
  EXPECT_EQ(arrivals.size(), 500u);
  std::size_t first_half = 0;
  for (const auto& a : arrivals) first_half += a.offset < std::chrono::seconds(5) ? 1 : 0;
  EXPECT_EQ(first_half, 125u);
  for (std::size_t i = 1; i < arrivals.size(); ++i) ASSERT_LT(arrivals[i - 1].offset, arrivals[i].offset);
}

TEST(RateProfileTest, StepsExpandIntoPlateaus) {
  auto p = RateProfile::FromStages({{.name = "steps", .kind = StageKind::kSteps, .rate_from = 100, .rate_to = 400,
                                     .duration_seconds = 4, .steps = 4}});
  ASSERT_EQ(p.stages().size(), 4u);
  EXPECT_DOUBLE_EQ(p.stages()[1].rate_from, 200);
  EXPECT_DOUBLE_EQ(p.stages()[3].rate_from, 400);
  EXPECT_EQ(All(p).size(), 1000u);
  EXPECT_DOUBLE_EQ(p.PeakRate(), 400);
}

TEST(RateProfileTest, SpikeBurstsThenComesBack) {
  auto p = RateProfile::FromStages({{.name = "spike", .kind = StageKind::kSpike, .rate_from = 10, .rate_to = 100,
                                     .duration_seconds = 6, .spike_at_seconds = 2, .spike_seconds = 1}});
  ASSERT_EQ(p.stages().size(), 3u);
  EXPECT_DOUBLE_EQ(p.stages()[0].rate_from, 10);
  EXPECT_DOUBLE_EQ(p.stages()[1].rate_from, 100);
  EXPECT_DOUBLE_EQ(p.stages()[2].rate_from, 10);
  EXPECT_EQ(All(p).size(), 20u + 100u + 30u);
  EXPECT_EQ(p.StageAt(std::chrono::milliseconds(2500)), "spike");
  EXPECT_THROW(RateProfile::FromStages({{.name = "bad", .kind = StageKind::kSpike, .rate_from = 1, .rate_to = 5,
                                         .duration_seconds = 3, .spike_at_seconds = 2, .spike_seconds = 2}}),
               std::invalid_argument);
}

TEST(RateProfileTest, SoakIsALongConstantStage) {
  auto p = RateProfile::FromStages({{.name = "soak", .kind = StageKind::kSoak, .rate_from = 5, .duration_seconds = 600}});
  ASSERT_EQ(p.stages().size(), 1u);
  EXPECT_EQ(p.stages()[0].kind, StageKind::kConstant);
  EXPECT_EQ(p.ExpectedArrivals(), 3000u);
}

TEST(RateProfileTest, StagesFollowEachOtherAndAreNamed) {
  auto p = RateProfile::FromStages({{.name = "warm-up", .rate_from = 10, .duration_seconds = 2},
                                    {.name = "overload", .rate_from = 50, .duration_seconds = 1}});
  auto arrivals = All(p);
  ASSERT_EQ(arrivals.size(), 70u);
  EXPECT_EQ(arrivals[20].offset.count(), 2'000'000'000);
  EXPECT_EQ(arrivals[20].stage, 1);
  EXPECT_EQ(p.StageAt(std::chrono::milliseconds(1500)), "warm-up");
  EXPECT_EQ(p.StageAt(std::chrono::milliseconds(2500)), "overload");
  EXPECT_EQ(p.StageAt(std::chrono::seconds(4)), "");
}

TEST(RateProfileTest, RejectsBadStagesNamingThem) {
  try {
    RateProfile::FromStages({{.name = "broken", .rate_from = 10, .duration_seconds = 0}});
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "rate profile stage 'broken': duration must be > 0 seconds");
  }
  EXPECT_THROW(RateProfile::FromStages({{.name = "neg", .rate_from = -1, .duration_seconds = 1}}),
               std::invalid_argument);
  EXPECT_THROW(RateProfile::FromStages({}), std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::load

namespace aftershock::load {
namespace {

// Three shards of a ramp together are the whole schedule, each arrival exactly once, unchanged.
TEST(RateProfileTest, ShardsPartitionTheScheduleExactly) {
  const RateProfile p = RateProfile::FromStages(
      {{.name = "ramp", .kind = StageKind::kLinearRamp, .rate_from = 10, .rate_to = 300, .duration_seconds = 3},
       {.name = "flat", .rate_from = 200, .duration_seconds = 1}});
  std::vector<Arrival> all;
  RateProfile::Cursor whole = p.Begin();
  for (Arrival a; whole.Next(a);) all.push_back(a);
  std::vector<int> seen(all.size(), 0);
  for (int shard = 0; shard < 3; ++shard) {
    RateProfile::Cursor c = p.Begin(shard, 3);
    std::uint64_t last = 0;
    bool first = true;
    for (Arrival a; c.Next(a);) {
      ASSERT_LT(a.sequence, all.size());
      EXPECT_EQ(a.sequence % 3, static_cast<std::uint64_t>(shard));
      EXPECT_EQ(a.offset, all[a.sequence].offset);
      EXPECT_EQ(a.stage, all[a.sequence].stage);
      EXPECT_TRUE(first || a.sequence > last);
      first = false;
      last = a.sequence;
      ++seen[a.sequence];
    }
  }
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << "arrival " << i;
  EXPECT_THROW(p.Begin(3, 3), std::invalid_argument);
  EXPECT_THROW(p.Begin(0, 0), std::invalid_argument);
  EXPECT_THROW(p.Begin(-1, 2), std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::load
