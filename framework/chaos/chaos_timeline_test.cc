#include "framework/chaos/chaos_timeline.h"

#include <gtest/gtest.h>

namespace aftershock::chaos {
namespace {

using std::chrono::milliseconds;

TEST(ChaosTimelineTest, SpansCarryApplyAndRevertInMilliseconds) {
  const RunClock clock(Clock::time_point{} + std::chrono::hours(1), 1'700'000'000'000);
  ChaosTimeline timeline(clock);
  timeline.Record(clock.start() + milliseconds(10'250), "apply", "primary-kill");
  timeline.Record(clock.start() + milliseconds(12'000), "action", "replica-kill");
  timeline.Record(clock.start() + milliseconds(20'500), "revert", "primary-kill");
  timeline.Record(clock.start() + milliseconds(25'125), "apply", "partition");  // never reverted
  const std::vector<FaultSpan> spans = timeline.Spans(30);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].fault, "primary-kill");
  EXPECT_EQ(spans[0].begin_second, 10);
  EXPECT_EQ(spans[0].end_second, 20);
  EXPECT_DOUBLE_EQ(spans[0].apply_ms, 10'250);
  EXPECT_DOUBLE_EQ(spans[0].revert_ms, 20'500);
  EXPECT_EQ(spans[1].fault, "replica-kill");
  EXPECT_DOUBLE_EQ(spans[1].apply_ms, 12'000);  // an action: apply == revert
  EXPECT_DOUBLE_EQ(spans[1].revert_ms, 12'000);
  EXPECT_EQ(spans[2].end_second, 30);
  EXPECT_DOUBLE_EQ(spans[2].apply_ms, 25'125);
  EXPECT_DOUBLE_EQ(spans[2].revert_ms, 30'000);  // the run's end
}

}  // namespace
}  // namespace aftershock::chaos
