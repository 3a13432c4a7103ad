#include "framework/upstream_faults/fault_spec.h"

#include <algorithm>
#include <ostream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace aftershock::upstream_faults {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

std::string ErrorOf(std::string_view text) {
  try {
    ParseFaultSpec(text);
  } catch (const FaultSpecError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FaultSpecTest, ParsesTheSeedsExample) {
  const auto list = ParseFaultSpec("fault=upstream_latency;rate=0.5;ms=6000");
  ASSERT_EQ(list.faults.size(), 1u);
  EXPECT_EQ(list.faults[0].kind, FaultKind::kUpstreamLatency);
  EXPECT_DOUBLE_EQ(list.faults[0].rate, 0.5);
  EXPECT_EQ(list.faults[0].ms, 6000ms);
}

TEST(FaultSpecTest, ParsesEveryKindWithItsFields) {
  const auto list = ParseFaultSpec(
      "fault=upstream_latency;ms=200;jitter_ms=50, fault=upstream_error;code=429;rate=0.25,"
      "fault=upstream_partial;keep=0,fault=db_lock;ms=2000,fault=cache_poison,fault=clock_skew;skew_s=-3600");
  ASSERT_EQ(list.faults.size(), 6u);
  EXPECT_EQ(list.faults[0].jitter, 50ms);
  EXPECT_EQ(list.faults[1].code, 429);
  EXPECT_DOUBLE_EQ(list.faults[1].rate, 0.25);
  EXPECT_EQ(list.faults[2].keep, 0);
  EXPECT_EQ(list.faults[3].kind, FaultKind::kDbLock);
  EXPECT_EQ(list.faults[3].ms, 2000ms);
  EXPECT_EQ(list.faults[4].kind, FaultKind::kCachePoison);
  EXPECT_DOUBLE_EQ(list.faults[4].rate, 1.0);
  EXPECT_EQ(list.faults[5].skew, -3600s);
}

TEST(FaultSpecTest, WhitespaceAroundKeysValuesAndSeparatorsIsIgnored) {
  EXPECT_EQ(ParseFaultSpec("  fault = db_lock ; ms = 10 ,  fault=cache_poison  "),
            ParseFaultSpec("fault=db_lock;ms=10,fault=cache_poison"));
}

TEST(FaultSpecTest, BlankTextIsAnEmptyList) {
  EXPECT_TRUE(ParseFaultSpec("").faults.empty());
  EXPECT_TRUE(ParseFaultSpec("   ").faults.empty());
  EXPECT_EQ(FormatFaultSpec(FaultSpecList{}), "");
}

TEST(FaultSpecTest, FormatIsCanonicalAndRoundTrips) {
  const std::string text =
      "fault=upstream_latency;rate=0.5;ms=6000;jitter_ms=100,fault=upstream_error;code=503,"
      "fault=upstream_partial;rate=0.3;keep=2,fault=db_lock;ms=2000,fault=cache_poison;rate=0.125,"
      "fault=clock_skew;skew_s=86400";
  const auto list = ParseFaultSpec(text);
  EXPECT_EQ(FormatFaultSpec(list), text);
  EXPECT_EQ(ParseFaultSpec(FormatFaultSpec(list)), list);
  // Field order and defaults do not survive formatting: the canonical form does.
  EXPECT_EQ(FormatFaultSpec(ParseFaultSpec("ms=10;rate=1;fault=upstream_latency;jitter_ms=0")),
            "fault=upstream_latency;ms=10");
  EXPECT_EQ(FormatFaultSpec(ParseFaultSpec("fault=upstream_partial;keep=1")), "fault=upstream_partial");
  EXPECT_EQ(FormatFaultSpec(ParseFaultSpec("fault=clock_skew;skew_s=+30")), "fault=clock_skew;skew_s=30");
}

TEST(FaultSpecTest, RatesRoundTripExactly) {
  for (const double rate : {0.0, 0.1, 0.3, 1.0 / 3.0, 0.999, 1e-6}) {
    FaultSpecList list{{FaultSpec{.kind = FaultKind::kCachePoison, .rate = rate}}};
    EXPECT_EQ(ParseFaultSpec(FormatFaultSpec(list)), list) << FormatFaultSpec(list);
  }
}

TEST(FaultSpecTest, NamesEveryKind) {
  for (const auto kind : {FaultKind::kUpstreamLatency, FaultKind::kUpstreamError, FaultKind::kUpstreamPartial,
                          FaultKind::kDbLock, FaultKind::kCachePoison, FaultKind::kClockSkew}) {
    EXPECT_EQ(FaultKindFromName(FaultKindName(kind)), kind);
  }
  EXPECT_EQ(FaultKindFromName("upstream_slow"), std::nullopt);
}

struct Rejection {
  const char* text;
  const char* message;
};
// The ctest name of each case is this print (gtest_discover_tests puts the value in place of the
// index): the spec, the same every build (the default printer showed the struct's pointer bytes).
// ';' shows as '|': CMake's test discovery reads the list of tests as a ';'-list.
void PrintTo(const Rejection& r, std::ostream* os) {
  std::string text = r.text;
  std::replace(text.begin(), text.end(), ';', '|');
  *os << text;
}

class FaultSpecRejectionTest : public ::testing::TestWithParam<Rejection> {};

TEST_P(FaultSpecRejectionTest, NamesTheFaultAndTheField) {
  EXPECT_THAT(ErrorOf(GetParam().text), HasSubstr(GetParam().message)) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    BadSpecs, FaultSpecRejectionTest,
    ::testing::Values(
        Rejection{"fault=upstream_slow;ms=10", "fault 1: unknown fault 'upstream_slow'"},
        Rejection{"fault=db_lock;ms=10;color=red", "fault 1: key 'color' is not a field of db_lock"},
        Rejection{"fault=db_lock;ms=10;code=503", "fault 1: key 'code' is not a field of db_lock (it takes fault, rate, ms)"},
        Rejection{"fault=cache_poison;ms=10", "fault 1: key 'ms' is not a field of cache_poison"},
        Rejection{"fault=db_lock;ms=10;ms=20", "fault 1: duplicate key 'ms'"},
        Rejection{"fault=db_lock;fault=cache_poison", "fault 1: duplicate key 'fault'"},
        Rejection{"ms=10;rate=0.5", "fault 1: missing 'fault='"},
        Rejection{"fault=cache_poison,ms=10", "fault 2: missing 'fault='"},
        Rejection{"fault=upstream_latency", "fault 1: upstream_latency needs 'ms'"},
        Rejection{"fault=db_lock", "fault 1: db_lock needs 'ms'"},
        Rejection{"fault=upstream_error", "fault 1: upstream_error needs 'code'"},
        Rejection{"fault=clock_skew", "fault 1: clock_skew needs 'skew_s'"},
        Rejection{"fault=cache_poison;rate=1.5", "fault 1: 'rate' must be a number in [0,1], got '1.5'"},
        Rejection{"fault=cache_poison;rate=-0.1", "'rate' must be a number in [0,1], got '-0.1'"},
        Rejection{"fault=cache_poison;rate=half", "'rate' must be a number in [0,1], got 'half'"},
        Rejection{"fault=cache_poison;rate=nan", "'rate' must be a number in [0,1], got 'nan'"},
        Rejection{"fault=cache_poison;rate=", "'rate' must be a number in [0,1], got ''"},
        Rejection{"fault=db_lock;ms=0", "fault 1: 'ms' must be a positive integer (<= 3600000), got '0'"},
        Rejection{"fault=db_lock;ms=-5", "'ms' must be a positive integer (<= 3600000), got '-5'"},
        Rejection{"fault=db_lock;ms=x", "'ms' must be a positive integer (<= 3600000), got 'x'"},
        Rejection{"fault=db_lock;ms=10s", "'ms' must be a positive integer (<= 3600000), got '10s'"},
        Rejection{"fault=db_lock;ms=36000000", "'ms' must be a positive integer"},
        Rejection{"fault=upstream_latency;ms=10;jitter_ms=20", "'jitter_ms' (20) must not exceed 'ms' (10)"},
        Rejection{"fault=upstream_latency;ms=10;jitter_ms=-1", "'jitter_ms' must be an integer >= 0, got '-1'"},
        Rejection{"fault=upstream_error;code=200", "'code' must be an HTTP status 500..599 or 429, got '200'"},
        Rejection{"fault=upstream_error;code=404", "'code' must be an HTTP status 500..599 or 429, got '404'"},
        Rejection{"fault=upstream_error;code=600", "'code' must be an HTTP status 500..599 or 429, got '600'"},
        Rejection{"fault=upstream_partial;keep=-1", "'keep' must be an integer >= 0, got '-1'"},
        Rejection{"fault=clock_skew;skew_s=0", "fault 1: 'skew_s' must not be 0"},
        Rejection{"fault=clock_skew;skew_s=1.5", "'skew_s' must be a signed integer of seconds"},
        Rejection{"fault=cache_poison,,fault=db_lock;ms=1", "fault 2: empty fault"},
        Rejection{"fault=cache_poison,", "fault 2: empty fault"},
        Rejection{"fault=cache_poison;;rate=1", "fault 1: empty field"},
        Rejection{"fault=cache_poison;", "fault 1: empty field"},
        Rejection{"fault=cache_poison;rate", "fault 1: field 'rate' is not key=value"},
        Rejection{"fault=cache_poison;=1", "fault 1: field '=1' has no key"},
        Rejection{"fault=cache_poison,fault=db_lock;ms=1,fault=db_lock", "fault 3: db_lock needs 'ms'"}));

}  // namespace
}  // namespace aftershock::upstream_faults
