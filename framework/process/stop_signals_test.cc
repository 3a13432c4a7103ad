#include "framework/process/stop_signals.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <thread>

namespace aftershock::process {
namespace {

// Each case runs in a child of its own (EXPECT_EXIT): blocking signals in the test program itself
// would reach every later test and the processes they start.

TEST(StopSignalsTest, WaitReturnsASignalThatArrivedBeforeIt) {
  EXPECT_EXIT(
      {
        const StopSignals stop = StopSignals::Block();
        raise(SIGINT);  // blocked: pending until Wait() takes it, not a default death
        std::_Exit(stop.Wait() == SIGINT ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(StopSignalsTest, ASigtermFromAnotherThreadReachesWaitAndNotAHandler) {
  EXPECT_EXIT(
      {
        const StopSignals stop = StopSignals::Block();
        std::thread sender([] { kill(getpid(), SIGTERM); });  // the thread inherited the mask
        const int sig = stop.Wait();
        sender.join();
        std::_Exit(sig == SIGTERM ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(StopSignalsTest, AWriteToAClosedPipeIsAnErrorNotADeath) {
  EXPECT_EXIT(
      {
        StopSignals::Block();
        int fds[2];
        if (pipe(fds) != 0) std::_Exit(2);
        close(fds[0]);
        const ssize_t n = write(fds[1], "x", 1);
        std::_Exit(n == -1 && errno == EPIPE ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(StopSignalsTest, NamesTheStopSignals) {
  EXPECT_STREQ(StopSignals::Name(SIGTERM), "SIGTERM");
  EXPECT_STREQ(StopSignals::Name(SIGINT), "SIGINT");
  EXPECT_STREQ(StopSignals::Name(SIGHUP), "another signal");
}

}  // namespace
}  // namespace aftershock::process
