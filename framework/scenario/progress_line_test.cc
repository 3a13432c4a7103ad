#include "framework/scenario/progress_line.h"

#include <atomic>
#include <chrono>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace aftershock::scenario {
namespace {

using std::chrono::milliseconds;

// Waits (bounded) until `reporter` printed at least `n` lines.
bool WaitForLines(const ProgressLine& reporter, int n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (reporter.lines_printed() < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

TEST(ProgressLine, PrintsOneLinePerPeriodWithTheRenderedText) {
  std::ostringstream out;
  std::atomic<int> counter{0};
  int printed = 0;
  {
    ProgressLine reporter(milliseconds(10), [&] { return "tick " + std::to_string(++counter); }, out);
    ASSERT_TRUE(WaitForLines(reporter, 3));
    // Destruction joins the thread, so `out` and `counter` are safe to read afterwards.
    printed = reporter.lines_printed();
  }
  const int ticks = counter.load();
  ASSERT_GE(ticks, 3);
  ASSERT_GE(ticks, printed);
  std::string expected;
  for (int i = 1; i <= ticks; ++i) expected += "[aftershock] tick " + std::to_string(i) + "\n";
  EXPECT_EQ(out.str(), expected);
}

TEST(ProgressLine, DestructorWakesTheThreadAtOnce) {
  std::ostringstream out;
  const auto start = std::chrono::steady_clock::now();
  { ProgressLine reporter(std::chrono::hours(1), [] { return std::string("never"); }, out); }
  // Generous bound: it must not wait for the hour-long period.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressLine, ZeroPeriodIsOff) {
  std::ostringstream out;
  std::atomic<int> calls{0};
  {
    ProgressLine reporter(milliseconds(0), [&] { ++calls; return std::string("x"); }, out);
    std::this_thread::sleep_for(milliseconds(30));
    EXPECT_EQ(reporter.lines_printed(), 0);
  }
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressLine, ARenderExceptionBecomesALine) {
  std::ostringstream out;
  {
    ProgressLine reporter(milliseconds(10), []() -> std::string { throw std::runtime_error("no data"); }, out);
    ASSERT_TRUE(WaitForLines(reporter, 1));
  }
  const std::string text = out.str();
  EXPECT_EQ(text.substr(0, text.find('\n') + 1), "[aftershock] progress unavailable: no data\n");
}

}  // namespace
}  // namespace aftershock::scenario
