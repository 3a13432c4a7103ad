#include "framework/metrics/internal/format.h"

#include <gtest/gtest.h>

#include <limits>

namespace aftershock::metrics::internal {
namespace {

TEST(MetricsFormatTest, FixedAndMilliseconds) {
  EXPECT_EQ(FormatFixed(1.5, 3), "1.500");
  EXPECT_EQ(FormatFixed(2.0 / 3.0, 2), "0.67");
  EXPECT_EQ(FormatFixed(std::numeric_limits<double>::quiet_NaN(), 1), "0.0");
  EXPECT_EQ(NsToMsText(1'234'567), "1.235");
  EXPECT_EQ(NsToMsText(0), "0.000");
  EXPECT_EQ(NsToMsText(7'200'000'000'000), "7200000.000");
}

TEST(MetricsFormatTest, ShortestDouble) {
  EXPECT_EQ(ShortestDouble(0.25), "0.25");
  EXPECT_EQ(ShortestDouble(10), "10");
  EXPECT_EQ(ShortestDouble(0.1), "0.1");
  EXPECT_EQ(ShortestDouble(std::numeric_limits<double>::infinity()), "null");
}

TEST(MetricsFormatTest, JsonQuotedEscapes) {
  EXPECT_EQ(JsonQuoted("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonQuoted("l1\nl2\t\x01"), "\"l1\\nl2\\t\\u0001\"");
  EXPECT_EQ(JsonQuoted("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
}

TEST(MetricsFormatTest, CsvFieldQuotesOnlyWhenNeeded) {
  EXPECT_EQ(CsvField("warm-up"), "warm-up");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField(""), "");
}

}  // namespace
}  // namespace aftershock::metrics::internal
