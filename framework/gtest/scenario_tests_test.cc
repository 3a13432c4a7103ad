#include "framework/gtest/scenario_tests.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace aftershock::gtest_integration {
namespace {

TEST(ScenarioTests, FollowsGoogleTestsDisabledRule) {
  EXPECT_TRUE(IsScenarioTest("Ha", "DISABLED_PrimaryKill"));
  EXPECT_TRUE(IsScenarioTest("DISABLED_Ha", "PrimaryKill"));
  EXPECT_TRUE(IsScenarioTest("Prefix/DISABLED_Ha", "Kill/0"));
  EXPECT_TRUE(IsScenarioTest("Prefix/Ha", "DISABLED_Kill/0"));
  EXPECT_FALSE(IsScenarioTest("Ha", "PrimaryKill"));
  EXPECT_FALSE(IsScenarioTest("Ha", "Kill_DISABLED_"));
  EXPECT_FALSE(IsScenarioTest("HaDISABLED_", "disabled_kill"));
}

// This binary registers no scenario (a disabled case here would show up as "did not run" in every
// ctest summary); the listing of a binary that has some is checked on guard_probe in
// end_to_end_test.cc.
TEST(ScenarioTests, ListIsEmptyInABinaryWithoutScenarios) { EXPECT_EQ(ListScenarioTests(), std::vector<std::string>{}); }

}  // namespace
}  // namespace aftershock::gtest_integration
