#include "framework/gtest/scenario_tests.h"

#include "gtest/gtest.h"

namespace aftershock::gtest_integration {
namespace {

// GoogleTest's kDisableTestFilter is "DISABLED_*:*/DISABLED_*".
bool IsDisabledName(std::string_view name) {
  return name.starts_with("DISABLED_") || name.find("/DISABLED_") != std::string_view::npos;
}

}  // namespace

bool IsScenarioTest(std::string_view suite_name, std::string_view test_name) {
  return IsDisabledName(suite_name) || IsDisabledName(test_name);
}

std::vector<std::string> ListScenarioTests() {
  std::vector<std::string> names;
  const testing::UnitTest& unit_test = *testing::UnitTest::GetInstance();
  for (int i = 0; i < unit_test.total_test_suite_count(); ++i) {
    const testing::TestSuite& suite = *unit_test.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j) {
      const testing::TestInfo& info = *suite.GetTestInfo(j);
      if (IsScenarioTest(info.test_suite_name(), info.name())) {
        names.push_back(std::string(info.test_suite_name()) + "." + info.name());
      }
    }
  }
  return names;
}

}  // namespace aftershock::gtest_integration
