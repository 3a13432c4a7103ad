#include "framework/gtest/empty_run_guard.h"

#include "gtest/gtest.h"

namespace aftershock::gtest_integration {
namespace {

TEST(EmptyRunGuard, Message) {
  EXPECT_EQ(EmptyRunMessage("example", "*Kill*", false, 0),
            "aftershock: the resilience selection for set 'example' executed no scenario (filter '*Kill*', "
            "also_run_disabled_tests=0, skipped scenarios=0): a run that executes nothing must not look green");
  EXPECT_EQ(EmptyRunMessage("pr", "*", true, 3),
            "aftershock: the resilience selection for set 'pr' executed no scenario (filter '*', "
            "also_run_disabled_tests=1, skipped scenarios=3): a run that executes nothing must not look green");
}

TEST(EmptyRunGuard, NamesEveryExactlyNamedScenarioThatDidNotExecute) {
  const std::string filter =
      "HaSuite.DISABLED_Baseline:HaSuite.DISABLED_PrimaryKil:HaSuite.DISABLED_ReplicaKill:*Drain*:Unit.Test"
      "-HaSuite.DISABLED_Other";
  EXPECT_EQ(MissingNamedScenarios(filter, {"HaSuite.DISABLED_Baseline"}, {"HaSuite.DISABLED_ReplicaKill"}),
            (std::vector<std::string>{
                "HaSuite.DISABLED_PrimaryKil (did not run: no such scenario in this binary?)",
                "HaSuite.DISABLED_ReplicaKill (skipped itself)"}));
  EXPECT_TRUE(MissingNamedScenarios(filter, {"HaSuite.DISABLED_Baseline", "HaSuite.DISABLED_PrimaryKil",
                                             "HaSuite.DISABLED_ReplicaKill"},
                                    {})
                  .empty());
  EXPECT_TRUE(MissingNamedScenarios("*", {}, {}).empty());
}

// The guard's failure mechanism is checked from the outside (exit codes) in end_to_end_test.cc;
// here only its counting, fed with this test's own TestInfo.
TEST(EmptyRunGuard, DoesNotCountNonScenarioTests) {
  EmptyRunGuard guard("pr");
  guard.OnTestIterationStart(*testing::UnitTest::GetInstance(), 0);
  guard.OnTestEnd(*testing::UnitTest::GetInstance()->current_test_info());
  EXPECT_EQ(guard.executed_scenarios(), 0);
}

}  // namespace
}  // namespace aftershock::gtest_integration
