#include "framework/gates/internal/format_number.h"

#include <limits>

#include "gtest/gtest.h"

namespace aftershock::gates::internal {
namespace {

TEST(FormatNumberTest, IntegersHaveNoDecimals) {
  EXPECT_EQ(FormatNumber(30), "30");
  EXPECT_EQ(FormatNumber(0), "0");
  EXPECT_EQ(FormatNumber(-2), "-2");
}

TEST(FormatNumberTest, FractionsKeepAtMostThreeDecimals) {
  EXPECT_EQ(FormatNumber(12.5), "12.5");
  EXPECT_EQ(FormatNumber(2.0 / 3), "0.667");
  EXPECT_EQ(FormatNumber(1.35), "1.35");
  EXPECT_EQ(FormatNumber(-0.0001), "0");
}

TEST(FormatNumberTest, NonFinite) {
  EXPECT_EQ(FormatNumber(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(FormatNumber(std::numeric_limits<double>::quiet_NaN()), "nan");
}

}  // namespace
}  // namespace aftershock::gates::internal
