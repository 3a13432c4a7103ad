#include "framework/cluster/local/internal/owner_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

namespace aftershock::cluster::internal {
namespace {

TEST(OwnerThreadTest, RunsTasksOnItsOwnThreadAndRethrows) {
  std::atomic<int> ticks{0};
  OwnerThread owner([&] { ++ticks; }, std::chrono::milliseconds(10));
  std::thread::id ran_on;
  owner.Run([&] { ran_on = std::this_thread::get_id(); });
  EXPECT_NE(ran_on, std::this_thread::get_id());
  EXPECT_THROW(owner.Run([] { throw std::runtime_error("boom"); }), std::runtime_error);
  for (int i = 0; i < 500 && ticks < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_GE(ticks.load(), 3);
}

TEST(OwnerThreadTest, RefusesTasksOnceStopped) {
  OwnerThread owner([] {}, std::chrono::milliseconds(10));
  owner.Stop();
  EXPECT_THROW(owner.Run([] {}), std::runtime_error);
  owner.Stop();  // idempotent
}

}  // namespace
}  // namespace aftershock::cluster::internal
