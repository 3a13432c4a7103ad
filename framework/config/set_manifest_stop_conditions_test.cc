// The manifest's `stop_conditions:` (the safety watch, docs/safety.md): the set's list, a scenario's
// additions and replacements by name, and every malformed entry an error naming file and line.
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

// kHead with a top-level stop_conditions: before `scenarios:` (from line 16 on).
std::string WithSetConditions(const std::string& lines) {
  return Replaced(std::string(kHead), "scenarios:\n", "stop_conditions:\n" + lines + "scenarios:\n");
}

constexpr char kDisk[] = R"(  - name: free-disk
    promql: 'min(node_filesystem_avail_bytes / node_filesystem_size_bytes)'
    comparator: "<"
    threshold: 0.2
    for_seconds: 10s
)";

TEST(ManifestStopConditionsTest, NoneMeansAnEmptyList) {
  const SetManifest m = ParseSetManifest(Manifest(kBaseline), kPath, Environment());
  EXPECT_TRUE(m.scenarios.at(0).stop_conditions.empty());
}

TEST(ManifestStopConditionsTest, ThePromqlAndSignalFormsAreRead) {
  const std::string yaml = WithSetConditions(kDisk) + kBaseline +
                           "    stop_conditions:\n"
                           "      - name: resets\n"
                           "        signal: transport_error_ratio\n"
                           "        window_seconds: 5s\n"
                           "        comparator: \">=\"\n"
                           "        threshold: 0.05\n"
                           "        for_seconds: 0\n"
                           "        breach_on_failure: false\n";
  const SetManifest m = ParseSetManifest(yaml, kPath, Environment());
  const auto& c = m.scenarios.at(0).stop_conditions;
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].name, "free-disk");
  EXPECT_EQ(c[0].promql, "min(node_filesystem_avail_bytes / node_filesystem_size_bytes)");
  EXPECT_EQ(c[0].comparator, "<");
  EXPECT_DOUBLE_EQ(c[0].threshold, 0.2);
  EXPECT_DOUBLE_EQ(c[0].for_seconds, 10);
  EXPECT_TRUE(c[0].breach_on_failure);
  EXPECT_EQ(c[0].source, "manifests/sets/pr.yaml:16");
  EXPECT_EQ(c[1].signal, "transport_error_ratio");
  EXPECT_DOUBLE_EQ(c[1].window_seconds, 5);
  EXPECT_EQ(c[1].comparator, ">=");
  EXPECT_FALSE(c[1].breach_on_failure);
}

TEST(ManifestStopConditionsTest, AScenarioReplacesTheSetsConditionOfTheSameName) {
  const std::string yaml = WithSetConditions(kDisk) + kBaseline +
                           "    stop_conditions:\n"
                           "      - {name: free-disk, promql: 'vector(1)', comparator: \"<\", threshold: 0.1, "
                           "for_seconds: 0}\n"
                           "  - name: plain\n    test: PrSuite.DISABLED_Plain\n";
  const SetManifest m = ParseSetManifest(yaml, kPath, Environment());
  ASSERT_EQ(m.scenarios.at(0).stop_conditions.size(), 1u);
  EXPECT_DOUBLE_EQ(m.scenarios.at(0).stop_conditions[0].threshold, 0.1);
  ASSERT_EQ(m.scenarios.at(1).stop_conditions.size(), 1u);
  EXPECT_DOUBLE_EQ(m.scenarios.at(1).stop_conditions[0].threshold, 0.2);
}

std::string ScenarioWith(const std::string& condition_lines) {
  return Manifest(std::string(kBaseline) + "    stop_conditions:\n" + condition_lines);
}

TEST(ManifestStopConditionsTest, MalformedConditionsAreErrorsWithFileAndLine) {
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    stop_conditions: {name: x}\n")),
            "manifests/sets/pr.yaml:18: key 'stop_conditions' of scenario 'baseline': expected a list of stop "
            "conditions, found a map");
  EXPECT_EQ(ErrorOf(ScenarioWith("      - {name: x, comparator: \">\", threshold: 1, for_seconds: 0}\n")),
            "manifests/sets/pr.yaml:19: stop condition 'x' of scenario 'baseline': give exactly one of 'promql' "
            "(a PromQL expression) and 'signal' (a generator signal, docs/safety.md)");
  EXPECT_THAT(ErrorOf(ScenarioWith("      - {name: x, promql: up, signal: s, window_seconds: 1, comparator: \">\", "
                                   "threshold: 1, for_seconds: 0}\n")),
              HasSubstr(", not both"));
  EXPECT_EQ(ErrorOf(ScenarioWith("      - {name: x, signal: error_ratio, comparator: \">\", threshold: 1, "
                                 "for_seconds: 0}\n")),
            "manifests/sets/pr.yaml:19: stop condition 'x' of scenario 'baseline' has no key 'window_seconds' "
            "(required with a signal: how far back the signal looks, e.g. 5s)");
  EXPECT_THAT(ErrorOf(ScenarioWith("      - {name: x, promql: up, window_seconds: 5, comparator: \">\", "
                                   "threshold: 1, for_seconds: 0}\n")),
              HasSubstr("key 'window_seconds' applies to a signal only"));
  EXPECT_EQ(ErrorOf(ScenarioWith("      - {name: x, promql: up, comparator: \"=>\", threshold: 1, for_seconds: 0}\n")),
            "manifests/sets/pr.yaml:19: stop condition 'x' of scenario 'baseline': key 'comparator': '=>' is not a "
            "comparator (known: >, >=, <, <=; quote it in YAML: \">\")");
  EXPECT_THAT(ErrorOf(ScenarioWith("      - {name: x, promql: up, comparator: \">\", threshold: lots, "
                                   "for_seconds: 0}\n")),
              HasSubstr("pr.yaml:19: stop condition 'x' of scenario 'baseline': key 'threshold': 'lots' is not a number"));
  EXPECT_THAT(ErrorOf(ScenarioWith("      - {name: x, promql: up, comparator: \">\", threshold: 1, for_seconds: -1}\n")),
              HasSubstr("pr.yaml:19: key 'for_seconds'"));
  EXPECT_THAT(ErrorOf(ScenarioWith("      - {name: x, promql: up, comparator: \">\", threshold: 1}\n")),
              HasSubstr("no key 'for_seconds'"));
  EXPECT_THAT(ErrorOf(ScenarioWith("      - {name: x, promql: up, comparator: \">\", threshold: 1, for_seconds: 0, "
                                   "forr: 1}\n")),
              HasSubstr("pr.yaml:19"));
  EXPECT_THAT(ErrorOf(ScenarioWith("      - {name: X Y, promql: up, comparator: \">\", threshold: 1, for_seconds: 0}\n")),
              HasSubstr("'X Y' is not a stop condition name"));
  EXPECT_THAT(ErrorOf(ScenarioWith("      - {name: x, promql: up, comparator: \">\", threshold: 1, for_seconds: 0, "
                                   "breach_on_failure: maybe}\n")),
              HasSubstr("key 'breach_on_failure': 'maybe' is not true or false"));
  EXPECT_EQ(ErrorOf(ScenarioWith("      - {name: x, promql: up, comparator: \">\", threshold: 1, for_seconds: 0}\n"
                                 "      - {name: x, promql: up, comparator: \"<\", threshold: 1, for_seconds: 0}\n")),
            "manifests/sets/pr.yaml:20: stop condition 'x' appears twice in scenario 'baseline' (first at "
            "manifests/sets/pr.yaml:19)");
}

}  // namespace
}  // namespace aftershock::config
