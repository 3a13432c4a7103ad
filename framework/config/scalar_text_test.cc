#include "framework/config/scalar_text.h"

#include <gtest/gtest.h>

namespace aftershock::config {
namespace {

TEST(ParseNumberTest, AcceptsPlainDecimals) {
  EXPECT_EQ(ParseNumber("200"), 200.0);
  EXPECT_EQ(ParseNumber("0.5"), 0.5);
  EXPECT_EQ(ParseNumber("-3"), -3.0);
  EXPECT_EQ(ParseNumber("1e3"), 1000.0);
}

TEST(ParseNumberTest, RejectsAnythingElse) {
  for (const char* text : {"", "ten", "10x", " 1", "1 ", "inf", "nan", "0x10", "+5", "1,5", "true"}) {
    EXPECT_EQ(ParseNumber(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(ParseIntegerTest, AcceptsOnlyWholeNumbers) {
  EXPECT_EQ(ParseInteger("2000"), 2000);
  EXPECT_EQ(ParseInteger("-1"), -1);
  EXPECT_EQ(ParseInteger("2.5"), std::nullopt);
  EXPECT_EQ(ParseInteger("2e3"), std::nullopt);
  EXPECT_EQ(ParseInteger(""), std::nullopt);
  EXPECT_EQ(ParseInteger("99999999999999999999999"), std::nullopt);
}

TEST(ParseDurationTest, PlainNumberIsSeconds) {
  EXPECT_EQ(ParseDuration("12"), 12.0);
  EXPECT_EQ(ParseDuration("0"), 0.0);
  EXPECT_EQ(ParseDuration("2.5"), 2.5);
}

TEST(ParseDurationTest, Units) {
  EXPECT_DOUBLE_EQ(*ParseDuration("500ms"), 0.5);
  EXPECT_EQ(ParseDuration("90s"), 90.0);
  EXPECT_EQ(ParseDuration("2m"), 120.0);
  EXPECT_EQ(ParseDuration("1.5m"), 90.0);
  EXPECT_EQ(ParseDuration("1h"), 3600.0);
}

TEST(ParseDurationTest, NegativeParsesSoTheCallerCanSayWhy) { EXPECT_EQ(ParseDuration("-3s"), -3.0); }

TEST(ParseDurationTest, RejectsMalformed) {
  for (const char* text : {"", "10x", "ten", "s", "ms", "1 s", "1sec", "1min", "m1", "1.5.2s", "1d", "1S"}) {
    EXPECT_EQ(ParseDuration(text), std::nullopt) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace aftershock::config
