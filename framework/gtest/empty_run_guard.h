// EmptyRunGuard: fails the program when a resilience selection executed no scenario.
//
// A selection whose filter matched nothing, that forgot --gtest_also_run_disabled_tests, or whose
// every scenario skipped itself (cluster missing, ...) would otherwise exit 0 and look green.
// The guard counts scenarios (see scenario_tests.h) that ran and were not skipped; at the end of
// each iteration, if none did, or if a scenario the filter names exactly (no wildcard: the
// Kubernetes generator Job names each scenario it runs) did not run or skipped itself, it records a
// failure on the ad-hoc test result, which makes
// RUN_ALL_TESTS() return 1. (In googletest 1.12 UnitTestImpl::RunAllTests checks Passed() right
// after OnTestIterationEnd; a failure added in OnTestProgramEnd would not change the exit code.)
//
//   if (flags.resilience_selection())
//     testing::UnitTest::GetInstance()->listeners().Append(new EmptyRunGuard(flags.set));
#ifndef AFTERSHOCK_FRAMEWORK_GTEST_EMPTY_RUN_GUARD_H_
#define AFTERSHOCK_FRAMEWORK_GTEST_EMPTY_RUN_GUARD_H_

#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace aftershock::gtest_integration {

class EmptyRunGuard : public testing::EmptyTestEventListener {
 public:
  explicit EmptyRunGuard(std::string set_name) : set_name_(std::move(set_name)) {}

  void OnTestIterationStart(const testing::UnitTest& unit_test, int iteration) override;
  void OnTestEnd(const testing::TestInfo& test_info) override;
  void OnTestIterationEnd(const testing::UnitTest& unit_test, int iteration) override;
  // Restates the message below GoogleTest's summary, whose "0 FAILED TESTS" would mislead.
  void OnTestProgramEnd(const testing::UnitTest& unit_test) override;

  // Scenarios executed (not skipped) in the current iteration.
  int executed_scenarios() const { return executed_; }

 private:
  std::string set_name_;
  int executed_ = 0;
  int skipped_ = 0;
  std::set<std::string> executed_names_;
  std::set<std::string> skipped_names_;
  std::string last_failure_;  // empty: no iteration was empty
};

// The scenarios a --gtest_filter names exactly (its positive patterns without * or ?) that are not
// in `executed`, each with why: "skipped itself" when in `skipped`, else "did not run (no such
// scenario in this binary?)". In filter order.
std::vector<std::string> MissingNamedScenarios(const std::string& filter, const std::set<std::string>& executed,
                                               const std::set<std::string>& skipped);

// The guard's message, exposed for tests.
std::string EmptyRunMessage(const std::string& set_name, const std::string& filter, bool also_run_disabled_tests,
                            int skipped_scenarios);

}  // namespace aftershock::gtest_integration

#endif  // AFTERSHOCK_FRAMEWORK_GTEST_EMPTY_RUN_GUARD_H_
