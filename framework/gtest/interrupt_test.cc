#include "framework/gtest/interrupt.h"

#include <csignal>

#include "gtest/gtest.h"

namespace aftershock::gtest_integration {
namespace {

// Only the first signal is raised in-process (a second one would kill this test binary); the
// second-signal behaviour is checked on guard_probe in end_to_end_test.cc.
TEST(Interrupt, FirstSignalOnlySetsTheFlag) {
  struct sigaction old_int;
  struct sigaction old_term;
  sigaction(SIGINT, nullptr, &old_int);
  sigaction(SIGTERM, nullptr, &old_term);
  InstallInterruptHandlers();
  ResetInterruptRequestForTesting();
  EXPECT_FALSE(InterruptRequested());
  ASSERT_EQ(std::raise(SIGTERM), 0);
  EXPECT_TRUE(InterruptRequested());
  ResetInterruptRequestForTesting();
  ASSERT_EQ(std::raise(SIGINT), 0);
  EXPECT_TRUE(InterruptRequested());
  ResetInterruptRequestForTesting();
  EXPECT_FALSE(InterruptRequested());
  sigaction(SIGINT, &old_int, nullptr);  // leave this test binary interruptible as before
  sigaction(SIGTERM, &old_term, nullptr);
}

}  // namespace
}  // namespace aftershock::gtest_integration
