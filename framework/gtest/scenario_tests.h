// Which gtest cases are aftershock scenarios, and the list of them in this binary.
//
// Scenarios are disabled gtest cases (a plain test run skips them); a resilience selection opts
// into them with --gtest_also_run_disabled_tests. "Disabled" follows GoogleTest's own rule: the
// suite or the test name starts with DISABLED_, also after a parameterised prefix
// ("Prefix/DISABLED_Suite", "DISABLED_Name/0").
//
//   IsScenarioTest("Ha", "DISABLED_PrimaryKill");   // true
//   std::vector<std::string> all = ListScenarioTests();  // {"Ha.DISABLED_PrimaryKill", ...}
#ifndef AFTERSHOCK_FRAMEWORK_GTEST_SCENARIO_TESTS_H_
#define AFTERSHOCK_FRAMEWORK_GTEST_SCENARIO_TESTS_H_

#include <string>
#include <string_view>
#include <vector>

namespace aftershock::gtest_integration {

bool IsScenarioTest(std::string_view suite_name, std::string_view test_name);

// Full names "Suite.Name" of every registered scenario, in registration order, whatever the
// --gtest_filter. Call after testing::InitGoogleTest.
std::vector<std::string> ListScenarioTests();

}  // namespace aftershock::gtest_integration

#endif  // AFTERSHOCK_FRAMEWORK_GTEST_SCENARIO_TESTS_H_
