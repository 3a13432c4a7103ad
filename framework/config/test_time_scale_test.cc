#include "framework/config/test_time_scale.h"

#include <chrono>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace aftershock::config {
namespace {

TEST(TestTimeScaleTest, UnsetOrEmptyIsOne) {
  EXPECT_EQ(ParseTestTimeScale(nullptr), 1.0);
  EXPECT_EQ(ParseTestTimeScale(""), 1.0);
}

TEST(TestTimeScaleTest, AcceptsNumbersFromOneToAHundred) {
  EXPECT_EQ(ParseTestTimeScale("1"), 1.0);
  EXPECT_EQ(ParseTestTimeScale("2.5"), 2.5);
  EXPECT_EQ(ParseTestTimeScale("100"), 100.0);
}

TEST(TestTimeScaleTest, RefusesAnythingElseNamingTheVariable) {
  for (const char* bad : {"0", "0.5", "-3", "101", "fast", "5x", " 5", "5 ", "nan", "inf", "0x10"}) {
    try {
      ParseTestTimeScale(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), std::string("AFTERSHOCK_TEST_TIME_SCALE='") + bad +
                                           "': want a number from 1 to 100 (docs/environment.md)");
    }
  }
}

TEST(TestTimeScaleTest, ScaledMultipliesADuration) {
  // The program's own environment decides the factor: 1 in a plain run, the preset's under a sanitizer.
  const double scale = TestTimeScale();
  EXPECT_EQ(Scaled(std::chrono::milliseconds(1500)).count(), static_cast<long>(1500 * scale));
}

}  // namespace
}  // namespace aftershock::config
