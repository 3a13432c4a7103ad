// The manifest's `env:` for the system under test: the set's base, a scenario's overrides, and every
// malformed entry an error naming file, line and name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/config/internal/manifest_test_util.h"
#include "framework/config/set_manifest.h"

namespace aftershock::config {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;
using testing::ErrorOf;
using testing::kBaseline;
using testing::kHead;
using testing::kPath;
using testing::Manifest;
using testing::Replaced;

// kHead with a top-level env: inserted before `scenarios:` (lines 15-16; scenarios move down by 3).
std::string WithSetEnv(const std::string& env_lines) {
  return Replaced(std::string(kHead), "scenarios:\n", "env:\n" + env_lines + "scenarios:\n");
}

TEST(ManifestSystemEnvTest, NoEnvMeansAnEmptyMap) {
  const SetManifest m = ParseSetManifest(Manifest(kBaseline), kPath, Environment());
  EXPECT_TRUE(m.scenarios.at(0).env.empty());
}

TEST(ManifestSystemEnvTest, ScenarioOverridesTheSetsEnvNameByName) {
  const std::string yaml = WithSetEnv("  APP_CACHE: \"off\"\n  APP_WORKERS: 4\n") + kBaseline +
                           "    env:\n      APP_CACHE: \"on\"\n      APP_TRACE: true\n" +
                           "  - name: plain\n    test: PrSuite.DISABLED_Plain\n";
  const SetManifest m = ParseSetManifest(yaml, kPath, Environment());
  EXPECT_THAT(m.scenarios.at(0).env,
              ElementsAre(Pair("APP_CACHE", "on"), Pair("APP_TRACE", "true"), Pair("APP_WORKERS", "4")));
  EXPECT_THAT(m.scenarios.at(1).env, ElementsAre(Pair("APP_CACHE", "off"), Pair("APP_WORKERS", "4")));
}

TEST(ManifestSystemEnvTest, EnvMustBeAMap) {
  EXPECT_EQ(ErrorOf(WithSetEnv("  - APP_CACHE\n") + kBaseline),
            "manifests/sets/pr.yaml:16: key 'env' of the manifest: expected a map of NAME: value, found a list");
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    env: APP_CACHE=on\n")),
            "manifests/sets/pr.yaml:18: key 'env' of scenario 'baseline': expected a map of NAME: value, found a "
            "scalar");
}

TEST(ManifestSystemEnvTest, NamesMustBeEnvironmentNames) {
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    env:\n      app-cache: on\n")),
            "manifests/sets/pr.yaml:19: env of scenario 'baseline': 'app-cache' is not an environment variable "
            "name (expected [A-Za-z_][A-Za-z0-9_]*)");
  EXPECT_EQ(ErrorOf(WithSetEnv("  1ST: x\n") + kBaseline),
            "manifests/sets/pr.yaml:16: env of the manifest: '1ST' is not an environment variable name "
            "(expected [A-Za-z_][A-Za-z0-9_]*)");
}

TEST(ManifestSystemEnvTest, AftershocksOwnPrefixesAreRefused) {
  EXPECT_EQ(ErrorOf(WithSetEnv("  RESILIENCE_LOAD_SECONDS: 5\n") + kBaseline),
            "manifests/sets/pr.yaml:16: env of the manifest: 'RESILIENCE_LOAD_SECONDS' is aftershock's own "
            "(RESILIENCE_* configures the run; set it in the environment of the run, not in the system's env:)");
  EXPECT_THAT(ErrorOf(Manifest(std::string(kBaseline) + "    env:\n      AFTERSHOCK_SET: pr\n")),
              ::testing::StartsWith("manifests/sets/pr.yaml:19: env of scenario 'baseline': 'AFTERSHOCK_SET' is "
                                    "aftershock's own (AFTERSHOCK_*"));
}

TEST(ManifestSystemEnvTest, ValuesMustBeScalars) {
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    env:\n      APP_CACHE:\n")),
            "manifests/sets/pr.yaml:19: env of scenario 'baseline': key 'APP_CACHE' has no value (write "
            "APP_CACHE: \"\" for an empty one)");
  EXPECT_THAT(ErrorOf(Manifest(std::string(kBaseline) + "    env:\n      APP_HOSTS: [a, b]\n")),
              ::testing::StartsWith("manifests/sets/pr.yaml:19: key 'APP_HOSTS': expected a scalar (text, number or "
                                    "boolean), found a list"));
  const SetManifest m = ParseSetManifest(Manifest(std::string(kBaseline) + "    env:\n      APP_EMPTY: \"\"\n"),
                                         kPath, Environment());
  EXPECT_THAT(m.scenarios.at(0).env, ElementsAre(Pair("APP_EMPTY", "")));
}

TEST(ManifestSystemEnvTest, DuplicateNamesAreAnError) {
  EXPECT_THAT(ErrorOf(Manifest(std::string(kBaseline) + "    env:\n      A: 1\n      A: 2\n")),
              ::testing::StartsWith("manifests/sets/pr.yaml:20: key 'A' appears twice in env of scenario 'baseline'"));
}

}  // namespace
}  // namespace aftershock::config
