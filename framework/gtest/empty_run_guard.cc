#include "framework/gtest/empty_run_guard.h"

#include <cstdio>

#include "framework/gtest/scenario_tests.h"

namespace aftershock::gtest_integration {

std::string EmptyRunMessage(const std::string& set_name, const std::string& filter, bool also_run_disabled_tests,
                            int skipped_scenarios) {
  return "aftershock: the resilience selection for set '" + set_name + "' executed no scenario (filter '" + filter +
         "', also_run_disabled_tests=" + (also_run_disabled_tests ? "1" : "0") +
         ", skipped scenarios=" + std::to_string(skipped_scenarios) +
         "): a run that executes nothing must not look green";
}

void EmptyRunGuard::OnTestIterationStart(const testing::UnitTest& /*unit_test*/, int /*iteration*/) {
  executed_ = 0;
  skipped_ = 0;
}

void EmptyRunGuard::OnTestEnd(const testing::TestInfo& test_info) {
  if (!IsScenarioTest(test_info.test_suite_name(), test_info.name())) return;
  if (test_info.result()->Skipped()) {
    ++skipped_;
  } else {
    ++executed_;
  }
}

void EmptyRunGuard::OnTestIterationEnd(const testing::UnitTest& /*unit_test*/, int /*iteration*/) {
  if (executed_ > 0) return;
  // Outside any test this lands on the ad-hoc test result: RUN_ALL_TESTS() then returns 1 and the
  // JUnit XML carries the failure.
  last_failure_ =
      EmptyRunMessage(set_name_, GTEST_FLAG_GET(filter), GTEST_FLAG_GET(also_run_disabled_tests), skipped_);
  ADD_FAILURE() << last_failure_;
}

void EmptyRunGuard::OnTestProgramEnd(const testing::UnitTest& /*unit_test*/) {
  if (last_failure_.empty()) return;
  std::printf("%s\n", last_failure_.c_str());
  std::fflush(stdout);
}

}  // namespace aftershock::gtest_integration
