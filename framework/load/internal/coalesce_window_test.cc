#include "framework/load/internal/coalesce_window.h"

#include <gtest/gtest.h>

namespace aftershock::load::internal {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

TEST(CoalesceWindowTest, WaitsOnlyWhenTheNextArrivalFallsInsideTheWindow) {
  const microseconds window(500);
  // 5000/s: the next arrival is 200 us later, inside the window: wake at the window's end.
  EXPECT_EQ(CoalesceWindow(window, nanoseconds(1'000'000), nanoseconds(1'200'000)), nanoseconds(500'000));
  // 1000/s: the next one is 1 ms later; waiting would only add lag.
  EXPECT_EQ(CoalesceWindow(window, nanoseconds(1'000'000), nanoseconds(2'000'000)), nanoseconds(0));
  // Exactly at the window's end: nothing more would be due before it, so no wait either.
  EXPECT_EQ(CoalesceWindow(window, nanoseconds(1'000'000), nanoseconds(1'500'000)), nanoseconds(0));
  EXPECT_EQ(CoalesceWindow(window, nanoseconds(1'000'000), nanoseconds(1'499'999)), nanoseconds(500'000));
  // Two arrivals at the same instant (a burst of a Poisson-like profile): the window applies.
  EXPECT_EQ(CoalesceWindow(window, nanoseconds(7), nanoseconds(7)), nanoseconds(500'000));
}

TEST(CoalesceWindowTest, NoWindowForTheLastArrivalOrWhenCoalescingIsOff) {
  EXPECT_EQ(CoalesceWindow(microseconds(500), nanoseconds(1'000'000), std::nullopt), nanoseconds(0));
  EXPECT_EQ(CoalesceWindow(microseconds(0), nanoseconds(1'000'000), nanoseconds(1'000'001)), nanoseconds(0));
}

}  // namespace
}  // namespace aftershock::load::internal
