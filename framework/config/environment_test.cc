#include "framework/config/environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>

#include "framework/config/config_error.h"
#include "framework/config/resilience_environment.h"

namespace aftershock::config {
namespace {

using ::testing::HasSubstr;

std::string ValidationError(std::map<std::string, std::string> entries) {
  try {
    ValidateEnvironment(Environment::FromMap(std::move(entries)));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(EnvironmentTest, FromMapGet) {
  Environment env = Environment::FromMap({{"RESILIENCE_LOAD_SECONDS", "30"}, {"EMPTY", ""}});
  EXPECT_EQ(env.Get("RESILIENCE_LOAD_SECONDS"), "30");
  EXPECT_EQ(env.Get("EMPTY"), "");
  EXPECT_EQ(env.Get("RESILIENCE_RATE_PER_SECOND"), std::nullopt);
}

TEST(EnvironmentTest, NamesWithPrefixAreSorted) {
  Environment env = Environment::FromMap(
      {{"RESILIENCE_B", "1"}, {"RESILIENCE_A", "2"}, {"OTHER", "3"}, {"RESILIENCEX", "4"}});
  EXPECT_EQ(env.NamesWithPrefix("RESILIENCE_"), (std::vector<std::string>{"RESILIENCE_A", "RESILIENCE_B"}));
  EXPECT_TRUE(Environment().NamesWithPrefix("RESILIENCE_").empty());
}

TEST(EnvironmentTest, FromProcessKeepsOnlyResilienceEntries) {
  ASSERT_EQ(setenv("RESILIENCE_CONFIG_TEST_PROBE", "probe-value", 1), 0);
  ASSERT_EQ(setenv("AFTERSHOCK_CONFIG_TEST_OTHER", "x", 1), 0);
  Environment env = Environment::FromProcess();
  unsetenv("RESILIENCE_CONFIG_TEST_PROBE");
  unsetenv("AFTERSHOCK_CONFIG_TEST_OTHER");
  EXPECT_EQ(env.Get("RESILIENCE_CONFIG_TEST_PROBE"), "probe-value");
  EXPECT_EQ(env.Get("AFTERSHOCK_CONFIG_TEST_OTHER"), std::nullopt);
}

TEST(ResilienceEnvironmentTest, KnownVariablesListsEveryKnobAndTheSelection) {
  const std::vector<std::string> known = KnownEnvironmentVariables();
  ASSERT_EQ(known.size(), 20u);
  EXPECT_NE(std::find(known.begin(), known.end(), "RESILIENCE_MAX_LATENCY_P99_SECONDS"), known.end());
  EXPECT_NE(std::find(known.begin(), known.end(), "RESILIENCE_MAX_RETRIES_PER_CALL"), known.end());
  EXPECT_NE(std::find(known.begin(), known.end(), "RESILIENCE_CONVERGE_TIMEOUT_SECONDS"), known.end());
  EXPECT_NE(std::find(known.begin(), known.end(), "RESILIENCE_DISPATCH_COALESCE_SECONDS"), known.end());
  EXPECT_NE(std::find(known.begin(), known.end(), "RESILIENCE_MAX_GAP_SECONDS"), known.end());
  EXPECT_NE(std::find(known.begin(), known.end(), "RESILIENCE_MAX_DISPATCH_LAG_SECONDS"), known.end());
  EXPECT_NE(std::find(known.begin(), known.end(), "RESILIENCE_DISPATCH_WAKE_SLICE_SECONDS"), known.end());
  EXPECT_NE(std::find(known.begin(), known.end(), "RESILIENCE_SCENARIOS"), known.end());
  EXPECT_EQ(known.front(), "RESILIENCE_CALL_DEADLINE_SECONDS");
  EXPECT_EQ(known.back(), "RESILIENCE_VERIFY_CONCURRENCY");
}

TEST(ResilienceEnvironmentTest, AcceptsWellFormedValuesAndIgnoresOtherVariables) {
  EXPECT_EQ(ValidationError({{"RESILIENCE_LOAD_SECONDS", "2m"},
                             {"RESILIENCE_MAX_IN_FLIGHT", "10"},
                             {"RESILIENCE_SCENARIOS", "a, b-2"},
                             {"PATH", "/usr/bin"}}),
            "<no error>");
}

TEST(ResilienceEnvironmentTest, BadDurationMessage) {
  EXPECT_EQ(ValidationError({{"RESILIENCE_LOAD_SECONDS", "ten"}}),
            "RESILIENCE_LOAD_SECONDS='ten': not a duration (expected a number of seconds or a value "
            "like 90s, 2m, 500ms)");
}

TEST(ResilienceEnvironmentTest, BoundsAndKinds) {
  EXPECT_EQ(ValidationError({{"RESILIENCE_RATE_PER_SECOND", "0"}}), "RESILIENCE_RATE_PER_SECOND='0': must be > 0");
  EXPECT_EQ(ValidationError({{"RESILIENCE_RATE_PER_SECOND", "fast"}}),
            "RESILIENCE_RATE_PER_SECOND='fast': not a number");
  EXPECT_EQ(ValidationError({{"RESILIENCE_MAX_IN_FLIGHT", "2.5"}}), "RESILIENCE_MAX_IN_FLIGHT='2.5': not an integer");
  EXPECT_EQ(ValidationError({{"RESILIENCE_VERIFY_CONCURRENCY", "0"}}),
            "RESILIENCE_VERIFY_CONCURRENCY='0': must be >= 1");
  EXPECT_EQ(ValidationError({{"RESILIENCE_SETTLE_SECONDS", "-3s"}}), "RESILIENCE_SETTLE_SECONDS='-3s': must be >= 0");
  EXPECT_EQ(ValidationError({{"RESILIENCE_SETTLE_SECONDS", "0"}}), "<no error>");
  EXPECT_EQ(ValidationError({{"RESILIENCE_LEDGER_CAPACITY", "3000000000"}}),
            "RESILIENCE_LEDGER_CAPACITY='3000000000': must be at most 2147483647");
  EXPECT_EQ(ValidationError({{"RESILIENCE_TIMEOUT_SECONDS", ""}}),
            "RESILIENCE_TIMEOUT_SECONDS='': not a duration (expected a number of seconds or a value like "
            "90s, 2m, 500ms)");
}

TEST(ResilienceEnvironmentTest, UnknownVariableListsKnownOnesAndSuggests) {
  const std::string error = ValidationError({{"RESILIENCE_LOAD_SECOND", "30"}});
  EXPECT_THAT(error, HasSubstr("RESILIENCE_LOAD_SECOND='30': not a known variable (known: "
                               "RESILIENCE_CALL_DEADLINE_SECONDS,"));
  EXPECT_THAT(error, HasSubstr("RESILIENCE_VERIFY_CONCURRENCY)"));
  EXPECT_THAT(error, HasSubstr("; did you mean RESILIENCE_LOAD_SECONDS?"));
}

// Once validated but read by nobody: refused, naming the variable that does the job.
TEST(ResilienceEnvironmentTest, SettingsOfTheRunAreAftershockVariables) {
  EXPECT_EQ(ValidationError({{"RESILIENCE_PROGRESS_SECONDS", "5"}}),
            "RESILIENCE_PROGRESS_SECONDS='5': not read by aftershock: the run's own settings are AFTERSHOCK_*; "
            "use AFTERSHOCK_PROGRESS_SECONDS (or --aftershock_progress_seconds)");
  EXPECT_EQ(ValidationError({{"RESILIENCE_ARTIFACTS_DIR", "/tmp/x"}}),
            "RESILIENCE_ARTIFACTS_DIR='/tmp/x': not read by aftershock: the run's own settings are AFTERSHOCK_*; "
            "use AFTERSHOCK_ARTIFACTS_DIR (or --aftershock_artifacts_dir)");
}

TEST(ResilienceEnvironmentTest, NonKnobVariables) {
  EXPECT_THAT(ValidationError({{"RESILIENCE_SCENARIOS", "a,,b"}}),
              HasSubstr("RESILIENCE_SCENARIOS='a,,b': has an empty item"));
  EXPECT_THAT(ValidationError({{"RESILIENCE_SCENARIOS", "Primary_Kill"}}),
              HasSubstr("RESILIENCE_SCENARIOS='Primary_Kill': 'Primary_Kill' is not a scenario name"));
}

TEST(ResilienceEnvironmentTest, ScenarioNamesAreTrimmedInOrder) {
  Environment env = Environment::FromMap({{"RESILIENCE_SCENARIOS", " b , a"}});
  EXPECT_EQ(ScenarioNamesFromEnvironment(env), (std::vector<std::string>{"b", "a"}));
  EXPECT_TRUE(ScenarioNamesFromEnvironment(Environment::FromMap({{"RESILIENCE_SCENARIOS", ""}})).empty());
  EXPECT_TRUE(ScenarioNamesFromEnvironment(Environment()).empty());
}

}  // namespace
}  // namespace aftershock::config
