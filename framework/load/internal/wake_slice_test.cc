#include "framework/load/internal/wake_slice.h"

#include <gtest/gtest.h>

namespace aftershock::load::internal {
namespace {

using std::chrono::microseconds;

const Clock::time_point kNow{};

TEST(SlicedWakeTest, ALongWaitIsTakenInSlices) {
  EXPECT_EQ(SlicedWake(kNow, kNow + microseconds(1000), microseconds(100)), kNow + microseconds(100));
  EXPECT_EQ(SlicedWake(kNow, kNow + microseconds(201), microseconds(100)), kNow + microseconds(100));
}

TEST(SlicedWakeTest, AWaitOfUpToTwoSlicesIsOneSleepToTheDueTime) {
  EXPECT_EQ(SlicedWake(kNow, kNow + microseconds(200), microseconds(100)), kNow + microseconds(200));
  EXPECT_EQ(SlicedWake(kNow, kNow + microseconds(150), microseconds(100)), kNow + microseconds(150));
  EXPECT_EQ(SlicedWake(kNow, kNow - microseconds(5), microseconds(100)), kNow - microseconds(5));  // overdue
}

TEST(SlicedWakeTest, NoSliceSleepsStraightToTheDueTime) {
  EXPECT_EQ(SlicedWake(kNow, kNow + microseconds(50000), microseconds(0)), kNow + microseconds(50000));
}

}  // namespace
}  // namespace aftershock::load::internal
