// Environment overrides of set manifests: precedence, profile scaling, RESILIENCE_SCENARIOS.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/config/internal/manifest_test_util.h"
#include "framework/config/set_manifest.h"

namespace aftershock::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::ErrorOf;
using testing::kBaseline;
using testing::kProfiled;
using testing::kPath;
using testing::Manifest;

SetManifest Parse(const std::string& yaml, std::map<std::string, std::string> env) {
  return ParseSetManifest(yaml, kPath, Environment::FromMap(std::move(env)));
}

TEST(SetManifestEnvTest, EnvironmentBeatsScenarioBeatsDefaults) {
  const std::string yaml = Manifest(std::string(kBaseline) + "    max_in_flight: 7\n    settle_seconds: 3\n");
  const ScenarioConfig c = Parse(yaml, {{"RESILIENCE_MAX_IN_FLIGHT", "9"},
                                        {"RESILIENCE_LOAD_SECONDS", "30s"},
                                        {"RESILIENCE_RATE_PER_SECOND", "50"}})
                               .scenarios[0];
  EXPECT_EQ(c.max_in_flight, 9);   // env over scenario
  EXPECT_EQ(c.settle_seconds, 3);  // scenario over default
  EXPECT_EQ(c.load_seconds, 30);   // env over default
  EXPECT_EQ(c.rate_per_second, 50);
  ASSERT_EQ(c.profile.size(), 1u);
  EXPECT_EQ(c.profile[0].rate_from, 50);
  EXPECT_EQ(c.profile[0].duration_seconds, 30);
}

TEST(SetManifestEnvTest, EveryKnobHasItsVariable) {
  const ScenarioConfig c = Parse(Manifest(kBaseline), {{"RESILIENCE_RATE_PER_SECOND", "11"},
                                                      {"RESILIENCE_LOAD_SECONDS", "30"},
                                                      {"RESILIENCE_SETTLE_SECONDS", "13"},
                                                      {"RESILIENCE_CALL_DEADLINE_SECONDS", "14"},
                                                      {"RESILIENCE_MAX_IN_FLIGHT", "15"},
                                                      {"RESILIENCE_LEDGER_CAPACITY", "16"},
                                                      {"RESILIENCE_MAX_OUTAGE_SECONDS", "17"},
                                                      {"RESILIENCE_MAX_UNAVAILABLE_SECONDS", "18"},
                                                      {"RESILIENCE_MAX_RECOVERY_SECONDS", "19"},
                                                      {"RESILIENCE_VERIFY_CONCURRENCY", "20"},
                                                      {"RESILIENCE_TIMEOUT_SECONDS", "45"},
                                                      {"RESILIENCE_MAX_GAP_SECONDS", "21"},
                                                      {"RESILIENCE_MAX_UNDECIDED_RATIO", "0.25"}})
                              .scenarios[0];
  EXPECT_EQ(c.rate_per_second, 11);
  EXPECT_EQ(c.load_seconds, 30);
  EXPECT_EQ(c.settle_seconds, 13);
  EXPECT_EQ(c.call_deadline_seconds, 14);
  EXPECT_EQ(c.max_in_flight, 15);
  EXPECT_EQ(c.ledger_capacity, 16u);
  EXPECT_EQ(c.max_outage_seconds, 17);
  EXPECT_EQ(c.max_unavailable_seconds, 18);
  EXPECT_EQ(c.max_recovery_seconds, 19);
  EXPECT_EQ(c.verify_concurrency, 20);
  EXPECT_EQ(c.timeout_seconds, 45);
  EXPECT_EQ(c.max_undecided_ratio, 0.25);
  EXPECT_EQ(c.max_gap_seconds, 21);
}

TEST(SetManifestEnvTest, GapBudgetFollowsTheOutageVariableWhenSetNowhere) {
  EXPECT_EQ(Parse(Manifest(kBaseline), {{"RESILIENCE_MAX_OUTAGE_SECONDS", "7"}}).scenarios[0].max_gap_seconds, 7);
  EXPECT_EQ(ErrorOf(Manifest(kBaseline), Environment::FromMap({{"RESILIENCE_MAX_GAP_SECONDS", "-2"}})),
            "RESILIENCE_MAX_GAP_SECONDS='-2': must be >= 0");
}

TEST(SetManifestEnvTest, EnvironmentCanSupplyAKnobMissingFromTheManifest) {
  const std::string yaml = testing::Replaced(Manifest(kBaseline), "  ledger_capacity: 1000\n", "");
  EXPECT_EQ(Parse(yaml, {{"RESILIENCE_LEDGER_CAPACITY", "64"}}).scenarios[0].ledger_capacity, 64u);
}

TEST(SetManifestEnvTest, UndecidedRatioMustBeARatio) {
  EXPECT_EQ(ErrorOf(Manifest(kBaseline), Environment::FromMap({{"RESILIENCE_MAX_UNDECIDED_RATIO", "1.5"}})),
            "RESILIENCE_MAX_UNDECIDED_RATIO='1.5': must be at least 0 and below 1 (1 allows everything: a gate that "
            "cannot fail)");
}

TEST(SetManifestEnvTest, MalformedVariableFailsTheLoad) {
  EXPECT_EQ(ErrorOf(Manifest(kBaseline), Environment::FromMap({{"RESILIENCE_LOAD_SECONDS", "ten"}})),
            "RESILIENCE_LOAD_SECONDS='ten': not a duration (expected a number of seconds or a value like 90s, "
            "2m, 500ms)");
  EXPECT_THAT(ErrorOf(Manifest(kBaseline), Environment::FromMap({{"RESILIENCE_LOAD_SECNDS", "10"}})),
              StartsWith("RESILIENCE_LOAD_SECNDS='10': not a known variable (known: RESILIENCE_CALL_DEADLINE_SECONDS,"));
}

TEST(SetManifestEnvTest, TimeoutCheckUsesTheFinalValues) {
  EXPECT_THAT(ErrorOf(Manifest(kBaseline), Environment::FromMap({{"RESILIENCE_LOAD_SECONDS", "2m"}})),
              HasSubstr("pr.yaml:16: scenario 'baseline': key 'timeout_seconds' (60 s) must exceed the load (120 s)"));
}

TEST(SetManifestEnvTest, RateScalesProfileByEnvOverConfiguredRate) {
  // Configured rate_per_second is the default 100; the environment asks for 200: every rate doubles.
  const ScenarioConfig c = Parse(Manifest(kProfiled), {{"RESILIENCE_RATE_PER_SECOND", "200"}}).scenarios[0];
  EXPECT_EQ(c.rate_per_second, 200);
  EXPECT_EQ(c.profile[0].rate_from, 120);
  EXPECT_EQ(c.profile[1].rate_from, 120);
  EXPECT_EQ(c.profile[1].rate_to, 800);
  EXPECT_EQ(c.profile[2].rate_from, 200);
  EXPECT_EQ(c.profile[2].rate_to, 800);
  EXPECT_EQ(c.profile[2].steps, 4);
  EXPECT_EQ(c.ProfileSeconds(), 90);  // durations untouched
  EXPECT_EQ(c.PeakRate(), 800);
}

TEST(SetManifestEnvTest, RateScalingUsesTheScenarioOverride) {
  const ScenarioConfig c = Parse(Manifest(std::string(kProfiled) + "    rate_per_second: 400\n"),
                                 {{"RESILIENCE_RATE_PER_SECOND", "100"}})
                               .scenarios[0];
  EXPECT_EQ(c.profile[0].rate_from, 15);
  EXPECT_EQ(c.PeakRate(), 100);
}

TEST(SetManifestEnvTest, LoadSecondsScalesStageDurations) {
  const ScenarioConfig c = Parse(Manifest(kProfiled), {{"RESILIENCE_LOAD_SECONDS", "45"}}).scenarios[0];
  EXPECT_EQ(c.load_seconds, 45);
  EXPECT_EQ(c.profile[0].duration_seconds, 15);
  EXPECT_EQ(c.profile[1].duration_seconds, 10);
  EXPECT_EQ(c.profile[2].duration_seconds, 20);
  EXPECT_EQ(c.profile[1].rate_to, 400);  // rates untouched
  EXPECT_EQ(c.ProfileSeconds(), 45);
}

TEST(SetManifestEnvTest, RateAndLoadScaleTogether) {
  const ScenarioConfig c =
      Parse(Manifest(kProfiled), {{"RESILIENCE_RATE_PER_SECOND", "50"}, {"RESILIENCE_LOAD_SECONDS", "3m"}})
          .scenarios[0];
  EXPECT_EQ(c.profile[1].rate_to, 200);
  EXPECT_EQ(c.profile[1].duration_seconds, 40);
  EXPECT_EQ(c.ProfileSeconds(), 180);
}

TEST(SetManifestEnvTest, RateScalingAgainstPeakWhenNoRateConfigured) {
  const std::string yaml = testing::Replaced(Manifest(kProfiled), "  rate_per_second: 100\n", "");
  const ScenarioConfig c = Parse(yaml, {{"RESILIENCE_RATE_PER_SECOND", "200"}}).scenarios[0];
  EXPECT_EQ(c.PeakRate(), 200);
  EXPECT_EQ(c.profile[0].rate_from, 30);
}

// --- RESILIENCE_SCENARIOS -------------------------------------------------------------------------

std::string ThreeScenarios() {
  return Manifest(std::string(kBaseline) +
                  "  - name: stall-burst\n    test: PrSuite.DISABLED_StallBurst\n"
                  "  - name: internal-burst\n    test: PrSuite.DISABLED_InternalBurst\n");
}

TEST(SelectedScenariosTest, UnsetOrEmptyMeansAllInManifestOrder) {
  const SetManifest set = Parse(ThreeScenarios(), {});
  EXPECT_THAT(SelectedScenarios(set, Environment()), ElementsAre("baseline", "stall-burst", "internal-burst"));
  EXPECT_THAT(SelectedScenarios(set, Environment::FromMap({{"RESILIENCE_SCENARIOS", ""}})),
              ElementsAre("baseline", "stall-burst", "internal-burst"));
}

TEST(SelectedScenariosTest, SubsetKeepsManifestOrder) {
  const Environment env = Environment::FromMap({{"RESILIENCE_SCENARIOS", "internal-burst, baseline"}});
  const SetManifest set = ParseSetManifest(ThreeScenarios(), kPath, env);
  EXPECT_THAT(SelectedScenarios(set, env), ElementsAre("baseline", "internal-burst"));
}

TEST(SelectedScenariosTest, UnknownNameListsTheSetsScenarios) {
  const SetManifest set = Parse(ThreeScenarios(), {});
  const Environment env = Environment::FromMap({{"RESILIENCE_SCENARIOS", "baseline,stall-brust"}});
  try {
    SelectedScenarios(set, env);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "RESILIENCE_SCENARIOS='baseline,stall-brust': 'stall-brust' is not a scenario of set "
                           "'pr' (manifests/sets/pr.yaml; scenarios: baseline, stall-burst, internal-burst); did "
                           "you mean 'stall-burst'?");
  }
  // Loading checks it too, so a typo cannot silently run nothing.
  EXPECT_THAT(ErrorOf(ThreeScenarios(), env), StartsWith("RESILIENCE_SCENARIOS='baseline,stall-brust': 'stall-brust' "
                                                         "is not a scenario of set 'pr'"));
}

}  // namespace
}  // namespace aftershock::config
