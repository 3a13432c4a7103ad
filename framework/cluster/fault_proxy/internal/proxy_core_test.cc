#include "framework/cluster/fault_proxy/internal/proxy_core.h"

#include <chrono>

#include <gtest/gtest.h>

namespace aftershock::cluster::internal {
namespace {

using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

TEST(FaultProxyCoreTest, ReleaseTimeWithoutFaultsIsTheArrival) {
  boost::asio::io_context io;
  ProxyCore core(io, 1);
  const auto t0 = SteadyClock::time_point{} + std::chrono::hours(1);
  EXPECT_EQ(core.ReleaseTime(t0, SteadyClock::time_point{}), t0);
}

TEST(FaultProxyCoreTest, JitterStaysWithinLatencyPlusMinusJitterAndKeepsOrder) {
  boost::asio::io_context io;
  ProxyCore core(io, 42);
  core.faults.latency = milliseconds(50);
  core.faults.jitter = milliseconds(20);
  const auto t0 = SteadyClock::time_point{} + std::chrono::hours(1);
  auto previous = SteadyClock::time_point{};
  // Arrivals 1 ms apart: jitter would reorder them, the clamp to `previous` must not let it.
  for (int i = 0; i < 2'000; ++i) {
    const auto arrival = t0 + milliseconds(i);
    const auto release = core.ReleaseTime(arrival, previous);
    ASSERT_GE(release, previous) << i;
    ASSERT_GE(release - arrival, milliseconds(30)) << i;
    ASSERT_LE(release - arrival, milliseconds(70)) << i;
    previous = release;
  }
  // Arrivals 1 s apart never clamp, so the delay shows the jitter itself, and it really varies.
  auto min_delay = SteadyClock::duration::max();
  auto max_delay = SteadyClock::duration::min();
  for (int i = 0; i < 2'000; ++i) {
    const auto arrival = t0 + std::chrono::seconds(10 + i);
    const auto release = core.ReleaseTime(arrival, previous);
    ASSERT_GE(release - arrival, milliseconds(30)) << i;
    ASSERT_LE(release - arrival, milliseconds(70)) << i;
    min_delay = std::min(min_delay, release - arrival);
    max_delay = std::max(max_delay, release - arrival);
    previous = release;
  }
  EXPECT_LT(min_delay, milliseconds(35));
  EXPECT_GT(max_delay, milliseconds(65));
}

TEST(FaultProxyCoreTest, JitterLargerThanLatencyNeverGoesNegative) {
  boost::asio::io_context io;
  ProxyCore core(io, 7);
  core.faults.latency = milliseconds(5);
  core.faults.jitter = milliseconds(50);
  const auto t0 = SteadyClock::time_point{} + std::chrono::hours(1);
  for (int i = 0; i < 1'000; ++i) {
    const auto arrival = t0 + std::chrono::seconds(i);  // far apart: ordering never clamps
    const auto release = core.ReleaseTime(arrival, SteadyClock::time_point{});
    ASSERT_GE(release, arrival) << i;
    ASSERT_LE(release - arrival, milliseconds(55)) << i;
  }
}

}  // namespace
}  // namespace aftershock::cluster::internal
