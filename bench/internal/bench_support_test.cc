#include "bench/internal/bench_support.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

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

TEST(BenchSupportTest, BoolFlagsAreStrict) {
  EXPECT_TRUE(ParseBool("reference", "true"));
  EXPECT_TRUE(ParseBool("reference", "1"));
  EXPECT_FALSE(ParseBool("reference", "false"));
  EXPECT_FALSE(ParseBool("reference", "0"));
  try {
    ParseBool("reference", "yes");
    ADD_FAILURE() << "yes accepted";
  } catch (const FlagError& e) {
    EXPECT_STREQ(e.what(), "--reference: expected true or false, got 'yes'");
  }
}

TEST(BenchSupportTest, RatioLineHasTheFixedFormat) {
  EXPECT_EQ(FormatRatioLine({.generator_cpu_us_per_call = 41.23,
                             .reference = "bare-grpc",
                             .reference_cpu_us_per_call = 33.0,
                             .held_rate = 10000,
                             .reference_rate = 7412.4}),
            "ratio generator_cpu_per_call=41.2 reference=bare-grpc reference_cpu_per_call=33.0 ratio=1.249 "
            "held_rate=10000 reference_rate=7412");
  // No reference figure: the ratio says 0, never a division by zero.
  EXPECT_EQ(FormatRatioLine({.generator_cpu_us_per_call = 8, .reference = "wrk"}),
            "ratio generator_cpu_per_call=8.0 reference=wrk reference_cpu_per_call=0.0 ratio=0.000 "
            "held_rate=0 reference_rate=0");
}

TEST(BenchSupportTest, SplitFlagsTakesNameValuePairsAndHelpAndNamesAnythingElse) {
  const char* args[] = {"bench", "--soak-seconds=600", "-h", "--h2load=", "--rates=1000,5000"};
  bool help = false;
  const std::vector<FlagArg> flags = SplitFlags(5, const_cast<char**>(args), &help);
  EXPECT_TRUE(help);
  ASSERT_EQ(flags.size(), 3u);
  EXPECT_EQ(flags[0].name, "soak_seconds");
  EXPECT_EQ(flags[0].value, "600");
  EXPECT_EQ(flags[1].name, "h2load");
  EXPECT_EQ(flags[1].value, "");
  EXPECT_EQ(flags[2].value, "1000,5000");
  for (const char* bad : {"--seconds", "seconds=5", "-x=1"}) {
    const char* line[] = {"bench", bad};
    bool unused = false;
    try {
      SplitFlags(2, const_cast<char**>(line), &unused);
      ADD_FAILURE() << bad << " was taken";
    } catch (const FlagError& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

TEST(BenchSupportTest, FixedHasExactlyTheDecimalsAsked) {
  EXPECT_EQ(Fixed(2.345, 1), "2.3");
  EXPECT_EQ(Fixed(5000, 0), "5000");
  EXPECT_EQ(Fixed(0.5, 3), "0.500");
  EXPECT_EQ(Fixed(-1.25, 1), "-1.2");  // round half to even, as printf does
}

TEST(BenchSupportTest, TempDirIsFreshAndGoesWithItsOwner) {
  std::filesystem::path path;
  {
    TempDir dir;
    TempDir other;
    path = dir.path();
    EXPECT_TRUE(std::filesystem::is_directory(path));
    EXPECT_NE(other.path(), path);
    std::ofstream(path / "ledger.tsv") << "x\n";
  }
  EXPECT_FALSE(std::filesystem::exists(path));
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

TEST(BenchSupportTest, ScheduleHeldIsIssueTwelvesBarAndEachConditionBreaksIt) {
  const HeldFigures held{.rate = 5000, .achieved_rate = 4995, .lag_p99_ms = 0.9, .shed = 0};
  EXPECT_TRUE(ScheduleHeld(held));
  HeldFigures f = held;
  f.achieved_rate = 4994;  // 0.9988 of the rate
  EXPECT_FALSE(ScheduleHeld(f));
  f = held;
  f.lag_p99_ms = 1.0;
  EXPECT_FALSE(ScheduleHeld(f));
  f = held;
  f.shed = 1;
  EXPECT_FALSE(ScheduleHeld(f));
  f = held;
  f.generator_limited = true;
  EXPECT_FALSE(ScheduleHeld(f));
  f = held;
  f.cut_off = true;
  EXPECT_FALSE(ScheduleHeld(f));
  f = held;
  f.rate = 0;
  EXPECT_FALSE(ScheduleHeld(f));
}

TEST(BenchSupportTest, HighestRateHeldThroughoutStopsAtTheFirstRateThatDidNotHold) {
  // In rate order: 1000 held, 5000 did not, 10000 held: the goal's rate is 1000, not 10000.
  EXPECT_EQ(HighestRateHeldThroughout({10000, 1000, 5000}, {true, true, false}), std::optional<std::size_t>(1));
  EXPECT_EQ(HighestRateHeldThroughout({1000, 5000, 10000}, {true, true, true}), std::optional<std::size_t>(2));
  EXPECT_EQ(HighestRateHeldThroughout({1000, 5000, 10000}, {true, true, false}), std::optional<std::size_t>(1));
  EXPECT_EQ(HighestRateHeldThroughout({1000, 5000}, {false, true}), std::nullopt);
  EXPECT_EQ(HighestRateHeldThroughout({}, {}), std::nullopt);
  EXPECT_THROW(HighestRateHeldThroughout({1000}, {}), std::invalid_argument);
}

TEST(BenchSupportTest, HeapPerCallIsTheLeastSquaresSlope) {
  // heap = 1 MB + 3808 bytes per call in flight, exactly: the slope comes back.
  std::vector<std::pair<double, double>> points;
  for (int n : {0, 500, 1000, 1500, 2000, 1200}) points.emplace_back(n, 1e6 + 3808.0 * n);
  const InFlightMemoryFit fit = FitHeapPerCall(points);
  EXPECT_NEAR(fit.bytes_per_call, 3808, 1e-6);
  EXPECT_EQ(fit.peak_in_flight, 2000);
  EXPECT_EQ(fit.samples, 6u);
  // One in-flight count only: no slope to fit.
  EXPECT_EQ(FitHeapPerCall({{100, 5e6}, {100, 6e6}}).bytes_per_call, 0);
  EXPECT_EQ(FitHeapPerCall({}).samples, 0u);
}

// In every build, ASan's too (where glibc's mallinfo2() does not move): 20 blocks of 64 KiB, below
// glibc's mmap threshold, show up.
TEST(BenchSupportTest, HeapBytesInUseSeesTheBlocksThisThreadHolds) {
  const std::size_t before = HeapBytesInUse();
  std::vector<std::unique_ptr<char[]>> held;
  for (int i = 0; i < 20; ++i) held.push_back(std::make_unique<char[]>(64 * 1024));
  EXPECT_GE(HeapBytesInUse(), before + 20 * 64 * 1024);
}

TEST(BenchSupportTest, SampleHeapPerCallSamplesWhileTheRunRuns) {
  std::atomic<std::int64_t> in_flight{0};
  std::vector<std::unique_ptr<char[]>> held;
  const InFlightMemoryFit fit = SampleHeapPerCall([&] { return in_flight.load(); },
                                                  [&] {
                                                    for (int i = 1; i <= 20; ++i) {  // 64 KiB more per "call"
                                                      held.push_back(std::make_unique<char[]>(64 * 1024));
                                                      in_flight.store(i);
                                                      std::this_thread::sleep_for(std::chrono::milliseconds(30));
                                                    }
                                                  });
  EXPECT_GE(fit.samples, 2u);
  EXPECT_GT(fit.bytes_per_call, 0);
  EXPECT_LE(fit.peak_in_flight, 20);
}

}  // namespace
}  // namespace aftershock::bench
