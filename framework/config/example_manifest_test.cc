// manifests/sets/example.yaml loads and says what the documentation says it does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/config/set_manifest.h"

namespace aftershock::config {
namespace {

const std::string kExamplePath = std::string(AFTERSHOCK_SOURCE_DIR) + "/manifests/sets/example.yaml";

TEST(ExampleManifestTest, Loads) {
  const SetManifest set = LoadSetManifest(kExamplePath, Environment());
  EXPECT_EQ(set.name, "example");
  EXPECT_EQ(set.path, kExamplePath);
  EXPECT_THAT(SelectedScenarios(set, Environment()),
              ::testing::ElementsAre("baseline", "stall-burst", "internal-burst", "kv-blocking-read-back",
                                     "kv-lost-writes", "kv-async-read-back"));
  for (const ScenarioConfig& c : set.scenarios) {
    // The key-value scenarios (suites/example/kv_suite.cc) run 8 s at 100/s.
    const bool kv = c.name.rfind("kv-", 0) == 0;
    EXPECT_EQ(c.set, "example");
    EXPECT_EQ(c.rate_per_second, kv ? 100 : 200) << c.name;
    EXPECT_EQ(c.load_seconds, kv ? 8 : 12) << c.name;
    EXPECT_EQ(c.settle_seconds, 1) << c.name;
    EXPECT_EQ(c.call_deadline_seconds, 2) << c.name;
    EXPECT_EQ(c.max_in_flight, 2000) << c.name;
    EXPECT_EQ(c.ledger_capacity, 1000000u) << c.name;
    EXPECT_EQ(c.max_outage_seconds, 5) << c.name;
    EXPECT_EQ(c.max_unavailable_seconds, kv ? 5 : 10) << c.name;  // below the kv runs' 8 s
    EXPECT_EQ(c.max_recovery_seconds, 10) << c.name;
    EXPECT_EQ(c.verify_concurrency, 16) << c.name;
    EXPECT_EQ(c.timeout_seconds, 120) << c.name;
    EXPECT_EQ(c.PeakRate(), kv ? 100 : 200) << c.name;
    EXPECT_EQ(c.ProfileSeconds(), kv ? 8 : 12) << c.name;
    EXPECT_THAT(c.source, ::testing::StartsWith(kExamplePath + ":")) << c.name;
  }
}

TEST(ExampleManifestTest, ScenariosAndParams) {
  const SetManifest set = LoadSetManifest(kExamplePath, Environment());
  const ScenarioConfig* baseline = set.FindByTest("ExampleSuite.DISABLED_Baseline");
  ASSERT_NE(baseline, nullptr);
  EXPECT_EQ(baseline->name, "baseline");
  EXPECT_TRUE(baseline->params.Keys().empty());

  const ScenarioConfig* stall = set.FindByTest("ExampleSuite.DISABLED_StallBurst");
  ASSERT_NE(stall, nullptr);
  EXPECT_EQ(stall->name, "stall-burst");
  EXPECT_EQ(stall->params.GetDuration("stall_at_seconds"), 4);
  EXPECT_EQ(stall->params.GetDuration("stall_seconds"), 2);
  EXPECT_TRUE(stall->params.Unread().empty());

  const ScenarioConfig* internal = set.FindByTest("ExampleSuite.DISABLED_InternalBurst");
  ASSERT_NE(internal, nullptr);
  EXPECT_EQ(internal->name, "internal-burst");
  EXPECT_EQ(internal->params.GetDuration("internal_at_seconds"), 4);
  EXPECT_EQ(internal->params.GetDuration("internal_seconds"), 3);
  EXPECT_EQ(internal->params.Unread(), (std::vector<std::string>{"internal_rate"}));
  EXPECT_EQ(internal->params.GetDouble("internal_rate"), 0.5);
}

TEST(ExampleManifestTest, EnvironmentSelectsAndOverrides) {
  const Environment env = Environment::FromMap({{"RESILIENCE_SCENARIOS", "stall-burst"},
                                                {"RESILIENCE_LOAD_SECONDS", "30s"}});
  const SetManifest set = LoadSetManifest(kExamplePath, env);
  EXPECT_THAT(SelectedScenarios(set, env), ::testing::ElementsAre("stall-burst"));
  EXPECT_EQ(set.Find("stall-burst")->load_seconds, 30);
}

}  // namespace
}  // namespace aftershock::config
