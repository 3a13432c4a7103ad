#include "bench/internal/bench_support.h"

#include <unistd.h>

#include <gtest/gtest.h>

namespace aftershock::bench {
namespace {

TEST(BenchSupportTest, FlagValuesAreStrict) {
  EXPECT_EQ(ParsePositiveDouble("seconds", "2.5"), 2.5);
  EXPECT_EQ(ParsePositiveDouble("warmup_seconds", "0", /*allow_zero=*/true), 0.0);
  EXPECT_EQ(ParsePositiveInt("channels", "4"), 4);
  try {
    ParsePositiveDouble("seconds", "0");
    ADD_FAILURE() << "0 accepted";
  } catch (const FlagError& e) {
    EXPECT_STREQ(e.what(), "--seconds: expected a positive number, got '0'");
  }
  EXPECT_THROW(ParsePositiveDouble("seconds", "2s"), FlagError);
  EXPECT_THROW(ParsePositiveInt("channels", "-1"), FlagError);
  EXPECT_THROW(ParsePositiveInt("channels", "1.5"), FlagError);
  EXPECT_EQ(ParseRates("1000,5000"), (std::vector<double>{1000, 5000}));
  EXPECT_THROW(ParseRates(""), FlagError);
  EXPECT_THROW(ParseRates("1000,x"), FlagError);
}

TEST(BenchSupportTest, CpuOfThisProcessIsReadable) {
  volatile double sink = 0;
  for (int i = 0; i < 20'000'000; ++i) sink = sink + i;  // bounded busy work, so the counter moves
  const std::optional<double> cpu = ProcessCpuSeconds(::getpid());
  ASSERT_TRUE(cpu.has_value());
  EXPECT_GT(*cpu, 0.0);
  EXPECT_EQ(ProcessCpuSeconds(-1), std::nullopt);
  EXPECT_GE(ReapedChildrenCpuSeconds(), 0.0);
}

}  // namespace
}  // namespace aftershock::bench
