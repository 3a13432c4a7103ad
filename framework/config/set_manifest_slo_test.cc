// The manifest's `slo:` (per-scenario service-level objectives, framework/config/slo_spec.h): the
// set's default, a scenario's keys replacing it, and every malformed entry an error naming file and
// line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/config/internal/manifest_test_util.h"
#include "framework/config/set_manifest.h"

namespace aftershock::config {
namespace {

using ::testing::HasSubstr;
using testing::ErrorOf;
using testing::kBaseline;
using testing::kHead;
using testing::kPath;
using testing::Manifest;
using testing::Replaced;

// kHead with a top-level slo: before `scenarios:` (the slo: key is line 15).
std::string WithSetSlo(const std::string& lines) {
  return Replaced(std::string(kHead), "scenarios:\n", "slo:\n" + lines + "scenarios:\n");
}

TEST(ManifestSloTest, NoneMeansNoObjectives) {
  const SetManifest m = ParseSetManifest(Manifest(kBaseline), kPath, Environment());
  EXPECT_FALSE(m.scenarios.at(0).slo.has_value());
}

TEST(ManifestSloTest, AScenarioDeclaresItsOwn) {
  const std::string yaml = Manifest(std::string(kBaseline) +
                                    "    slo:\n"
                                    "      success_ratio: 0.99\n"
                                    "      latency: {p99: 800ms, p50: 0.1, p99.9: 2s}\n");
  const SetManifest m = ParseSetManifest(yaml, kPath, Environment());
  ASSERT_TRUE(m.scenarios.at(0).slo.has_value());
  const SloSpec& slo = *m.scenarios.at(0).slo;
  EXPECT_EQ(slo.success_ratio, 0.99);
  ASSERT_EQ(slo.latency.size(), 3u);  // ascending percentile
  EXPECT_EQ(slo.latency[0], (LatencyObjective{"p50", 50, 0.1}));
  EXPECT_EQ(slo.latency[1], (LatencyObjective{"p99", 99, 0.8}));
  EXPECT_EQ(slo.latency[2], (LatencyObjective{"p99.9", 99.9, 2}));
  EXPECT_TRUE(slo.stages.empty());
  EXPECT_EQ(slo.source, "manifests/sets/pr.yaml:18");
}

TEST(ManifestSloTest, TheSetsDefaultIsOverriddenKeyByKey) {
  const std::string yaml = WithSetSlo("  success_ratio: 0.99\n  latency: {p99: 400ms, p50: 50ms}\n") +
                           kBaseline +
                           "    slo:\n"
                           "      latency: {p99: 800ms}\n"
                           "  - name: other\n"
                           "    test: PrSuite.DISABLED_Other\n";
  const SetManifest m = ParseSetManifest(yaml, kPath, Environment());
  const SloSpec& first = *m.scenarios.at(0).slo;
  EXPECT_EQ(first.success_ratio, 0.99);
  ASSERT_EQ(first.latency.size(), 2u);
  EXPECT_DOUBLE_EQ(first.latency[0].max_seconds, 0.05);
  EXPECT_DOUBLE_EQ(first.latency[1].max_seconds, 0.8);
  const SloSpec& second = *m.scenarios.at(1).slo;
  EXPECT_DOUBLE_EQ(second.latency[1].max_seconds, 0.4);
  EXPECT_EQ(second.source, "manifests/sets/pr.yaml:15");
}

TEST(ManifestSloTest, StagesMustBeStagesOfTheProfile) {
  const std::string scenario = std::string(kBaseline) +
                               "    profile:\n"
                               "      - {name: warm-up, kind: constant, rate: 10, duration: 2s}\n"
                               "      - {name: steady, kind: constant, rate: 10, duration: 8s}\n"
                               "    slo:\n"
                               "      success_ratio: 0.99\n"
                               "      stages: [steady]\n";
  EXPECT_EQ(ParseSetManifest(Manifest(scenario), kPath, Environment()).scenarios.at(0).slo->stages,
            std::vector<std::string>{"steady"});
  EXPECT_EQ(ErrorOf(Manifest(Replaced(scenario, "[steady]", "[stedy]"))),
            "manifests/sets/pr.yaml:21: key 'slo' of scenario 'baseline': stage 'stedy' is not a stage of the "
            "profile (stages: warm-up, steady)");
}

TEST(ManifestSloTest, MalformedObjectivesNameFileAndLine) {
  auto error = [](const std::string& slo_lines) {
    return ErrorOf(Manifest(std::string(kBaseline) + "    slo:\n" + slo_lines));
  };
  EXPECT_THAT(error("      success_ratio: 1.5\n"), HasSubstr("pr.yaml:19: key 'success_ratio': '1.5'"));
  EXPECT_THAT(error("      succes_ratio: 0.9\n"), HasSubstr("pr.yaml:19"));
  EXPECT_THAT(error("      succes_ratio: 0.9\n"), HasSubstr("succes_ratio"));
  EXPECT_THAT(error("      latency: {p100.5: 1s}\n"), HasSubstr("latency key 'p100.5' is not a percentile"));
  EXPECT_THAT(error("      latency: {p0: 1s}\n"), HasSubstr("latency key 'p0' is not a percentile"));
  EXPECT_THAT(error("      latency: {99: 1s}\n"), HasSubstr("latency key '99' is not a percentile"));
  EXPECT_THAT(error("      latency: {p99: 0s}\n"), HasSubstr("key 'p99': '0s'"));
  EXPECT_THAT(error("      latency: {p99: fast}\n"), HasSubstr("key 'p99': 'fast'"));
  EXPECT_THAT(error("      latency: {p99: 1s, p99.0: 2s}\n"), HasSubstr("is the same as 'p99'"));
  EXPECT_THAT(error("      latency: {}\n"), HasSubstr("declares no percentile"));
  EXPECT_THAT(error("      stages: []\n      success_ratio: 0.9\n"), HasSubstr("expected a non-empty list"));
  EXPECT_THAT(error("      stages: [load, load]\n      success_ratio: 0.9\n"), HasSubstr("stage 'load' is listed twice"));
  EXPECT_EQ(error("      stages: [load]\n"),
            "manifests/sets/pr.yaml:18: key 'slo' of scenario 'baseline' declares no objective (give "
            "success_ratio, latency or both)");
  EXPECT_THAT(ErrorOf(Manifest(std::string(kBaseline) + "    slo: 0.99\n")), HasSubstr("pr.yaml:18"));
}

}  // namespace
}  // namespace aftershock::config
