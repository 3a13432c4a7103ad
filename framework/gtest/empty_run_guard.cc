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

std::vector<std::string> MissingNamedScenarios(const std::string& filter, const std::set<std::string>& executed,
                                               const std::set<std::string>& skipped) {
  const std::string positive = filter.substr(0, filter.find('-'));
  std::vector<std::string> missing;
  std::size_t begin = 0;
  while (begin <= positive.size()) {
    std::size_t end = positive.find(':', begin);
    if (end == std::string::npos) end = positive.size();
    const std::string name = positive.substr(begin, end - begin);
    begin = end + 1;
    const std::size_t dot = name.find('.');
    if (name.empty() || name.find_first_of("*?") != std::string::npos || dot == std::string::npos) continue;
    if (!IsScenarioTest(std::string_view(name).substr(0, dot), std::string_view(name).substr(dot + 1))) continue;
    if (executed.count(name) != 0) continue;
    missing.push_back(name + (skipped.count(name) != 0 ? " (skipped itself)"
                                                        : " (did not run: no such scenario in this binary?)"));
  }
  return missing;
}

void EmptyRunGuard::OnTestIterationStart(const testing::UnitTest& /*unit_test*/, int /*iteration*/) {
  executed_ = 0;
  skipped_ = 0;
  executed_names_.clear();
  skipped_names_.clear();
}

void EmptyRunGuard::OnTestEnd(const testing::TestInfo& test_info) {
  if (!IsScenarioTest(test_info.test_suite_name(), test_info.name())) return;
  const std::string name = std::string(test_info.test_suite_name()) + "." + test_info.name();
  if (test_info.result()->Skipped()) {
    ++skipped_;
    skipped_names_.insert(name);
  } else {
    ++executed_;
    executed_names_.insert(name);
  }
}

void EmptyRunGuard::OnTestIterationEnd(const testing::UnitTest& /*unit_test*/, int /*iteration*/) {
  if (executed_ > 0) {
    const std::vector<std::string> missing =
        MissingNamedScenarios(GTEST_FLAG_GET(filter), executed_names_, skipped_names_);
    if (missing.empty()) return;
    last_failure_ = "aftershock: the resilience selection for set '" + set_name_ + "' named " +
                    std::to_string(missing.size()) + " scenario(s) that did not execute:";
    for (const std::string& m : missing) last_failure_ += " " + m + ";";
    last_failure_ += " every scenario asked for must run, or the run is not the one asked for";
    ADD_FAILURE() << last_failure_;
    return;
  }
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
