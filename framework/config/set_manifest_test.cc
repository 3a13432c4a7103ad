// Structure, knob and profile validation of set manifests (environment: set_manifest_env_test.cc).
#include "framework/config/set_manifest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "framework/config/internal/manifest_test_util.h"

namespace aftershock::config {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::ErrorOf;
using testing::kBaseline;
using testing::kProfiled;
using testing::kHead;
using testing::kPath;
using testing::Manifest;
using testing::Replaced;

SetManifest Parse(const std::string& yaml) { return ParseSetManifest(yaml, kPath, Environment()); }

TEST(SetManifestTest, ParsesDefaultsIntoEveryField) {
  const SetManifest set = Parse(Manifest(kBaseline));
  EXPECT_EQ(set.name, "pr");
  EXPECT_EQ(set.path, kPath);
  ASSERT_EQ(set.scenarios.size(), 1u);
  const ScenarioConfig& c = set.scenarios[0];
  EXPECT_EQ(c.set, "pr");
  EXPECT_EQ(c.name, "baseline");
  EXPECT_EQ(c.test, "PrSuite.DISABLED_Baseline");
  EXPECT_EQ(c.description, "");
  EXPECT_EQ(c.rate_per_second, 100);
  EXPECT_EQ(c.load_seconds, 10);
  EXPECT_EQ(c.settle_seconds, 1);
  EXPECT_EQ(c.call_deadline_seconds, 2);
  EXPECT_EQ(c.max_in_flight, 500);
  EXPECT_EQ(c.ledger_capacity, 1000u);
  EXPECT_EQ(c.max_outage_seconds, 5);
  EXPECT_EQ(c.max_gap_seconds, 5);  // set nowhere: the outage budget
  EXPECT_EQ(c.max_unavailable_seconds, 8);
  EXPECT_EQ(c.max_recovery_seconds, 9);
  EXPECT_EQ(c.verify_concurrency, 4);
  EXPECT_EQ(c.timeout_seconds, 60);
  EXPECT_EQ(c.source, "manifests/sets/pr.yaml:16");
  EXPECT_TRUE(c.params.Keys().empty());
}

TEST(SetManifestTest, DefaultProfileIsOneConstantStage) {
  const ScenarioConfig c = Parse(Manifest(kBaseline)).scenarios[0];
  ASSERT_EQ(c.profile.size(), 1u);
  EXPECT_EQ(c.profile[0].name, "load");
  EXPECT_EQ(c.profile[0].kind, load::StageKind::kConstant);
  EXPECT_EQ(c.profile[0].rate_from, 100);
  EXPECT_EQ(c.profile[0].duration_seconds, 10);
  EXPECT_EQ(c.PeakRate(), 100);
  EXPECT_EQ(c.ProfileSeconds(), 10);
}

TEST(SetManifestTest, ScenarioOverridesDefaults) {
  const SetManifest set = Parse(Manifest(std::string(kBaseline) + R"(    load_seconds: 2m
    max_in_flight: 7
    timeout_seconds: 5m
    description: longer
  - name: other
    test: PrSuite.DISABLED_Other
)"));
  EXPECT_EQ(set.scenarios[0].load_seconds, 120);
  EXPECT_EQ(set.scenarios[0].max_in_flight, 7);
  EXPECT_EQ(set.scenarios[0].description, "longer");
  EXPECT_EQ(set.scenarios[0].profile[0].duration_seconds, 120);
  EXPECT_EQ(set.scenarios[1].load_seconds, 10);
  EXPECT_EQ(set.scenarios[1].source, "manifests/sets/pr.yaml:22");
  EXPECT_EQ(set.Find("other"), &set.scenarios[1]);
  EXPECT_EQ(set.FindByTest("PrSuite.DISABLED_Baseline"), &set.scenarios[0]);
  EXPECT_EQ(set.Find("nope"), nullptr);
  EXPECT_EQ(set.FindByTest("PrSuite.Baseline"), nullptr);
}

TEST(SetManifestTest, EveryKnobMayComeFromTheScenarioAlone) {
  const std::string yaml = R"(set: pr
scenarios:
  - name: solo
    test: S.T
    rate_per_second: 5
    load_seconds: 500ms
    settle_seconds: 0
    call_deadline_seconds: 100ms
    max_in_flight: 1
    ledger_capacity: 1
    max_outage_seconds: 0
    max_unavailable_seconds: 0
    max_recovery_seconds: 0
    verify_concurrency: 1
    timeout_seconds: 1
    max_latency_p99_seconds: 50ms
)";
  const ScenarioConfig c = Parse(yaml).scenarios[0];
  EXPECT_EQ(c.load_seconds, 0.5);
  EXPECT_DOUBLE_EQ(c.call_deadline_seconds, 0.1);
  EXPECT_EQ(c.settle_seconds, 0);
}

// --- keys -----------------------------------------------------------------------------------------

TEST(SetManifestTest, UnknownKeyInScenarioNamesLineAndKnownKeys) {
  const std::string error = ErrorOf(Manifest(std::string(kBaseline) + "    load_secnds: 10\n"));
  EXPECT_THAT(error, StartsWith("manifests/sets/pr.yaml:18: key 'load_secnds' is not known (known: name, test, "
                                "description, profile, params, env, stop_conditions, slo, availability_not_judged, "
                                "latency_not_judged, faults_required, rate_per_second, load_seconds,"));
  EXPECT_THAT(error, HasSubstr("timeout_seconds, max_undecided_ratio, converge_timeout_seconds, "
                               "dispatch_coalesce_seconds, max_dispatch_lag_seconds, dispatch_wake_slice_seconds, "
                               "max_latency_p99_seconds, max_retries_per_call); did you mean "
                               "'load_seconds'?"));
}

TEST(SetManifestTest, UnknownKeyInDefaults) {
  EXPECT_THAT(ErrorOf(Replaced(Manifest(kBaseline), "  verify_concurrency: 4\n", "  verify_concurency: 4\n")),
              StartsWith("manifests/sets/pr.yaml:12: key 'verify_concurency' is not known (known: "
                         "rate_per_second, load_seconds,"));
}

TEST(SetManifestTest, UnknownTopLevelKey) {
  EXPECT_EQ(ErrorOf(Manifest(kBaseline) + "sceanrios: []\n"),
            "manifests/sets/pr.yaml:18: key 'sceanrios' is not known (known: set, description, defaults, env, "
            "stop_conditions, slo, scenarios); did you mean 'scenarios'?");
}

TEST(SetManifestTest, DuplicateKey) {
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    max_in_flight: 3\n    max_in_flight: 4\n")),
            "manifests/sets/pr.yaml:19: key 'max_in_flight' appears twice in scenario 'baseline' (first at line 18)");
}

TEST(SetManifestTest, MissingRequiredKeys) {
  EXPECT_EQ(ErrorOf("scenarios: []\n"), "manifests/sets/pr.yaml:1: the manifest has no key 'set' (required)");
  EXPECT_EQ(ErrorOf("set: pr\n"), "manifests/sets/pr.yaml:1: the manifest has no key 'scenarios' (required)");
  EXPECT_EQ(ErrorOf(Manifest("  - name: baseline\n")),
            "manifests/sets/pr.yaml:16: scenario 'baseline' has no key 'test' (required)");
  EXPECT_EQ(ErrorOf(Manifest("  - test: S.T\n")),
            "manifests/sets/pr.yaml:16: scenario 1 has no key 'name' (required)");
}

TEST(SetManifestTest, SetMustMatchFileStem) {
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "set: pr", "set: weekly")),
            "manifests/sets/pr.yaml:1: key 'set': 'weekly' does not match the file name (expected 'pr')");
}

TEST(SetManifestTest, ScenarioNameAndTestForm) {
  EXPECT_THAT(ErrorOf(Manifest("  - name: Primary_Kill\n    test: S.T\n")),
              StartsWith("manifests/sets/pr.yaml:16: key 'name': 'Primary_Kill' is not a scenario name "
                         "(expected [a-z0-9-]+"));
  EXPECT_THAT(ErrorOf(Manifest("  - name: a\n    test: JustAName\n")),
              StartsWith("manifests/sets/pr.yaml:17: key 'test': 'JustAName' is not a gtest full name"));
  EXPECT_THAT(ErrorOf(Manifest("  - name: a\n    test: A.B.C\n")), HasSubstr(":17: key 'test': 'A.B.C'"));
  EXPECT_EQ(ErrorOf(Manifest("  - name: a\n    test: Suite/0.Name/1\n")), "<no error>");
}

TEST(SetManifestTest, DuplicateScenarioNamesAndTests) {
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "  - name: baseline\n    test: S.T\n")),
            "manifests/sets/pr.yaml:18: key 'name': scenario 'baseline' appears twice (first at "
            "manifests/sets/pr.yaml:16)");
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "  - name: b\n    test: PrSuite.DISABLED_Baseline\n")),
            "manifests/sets/pr.yaml:19: key 'test': test 'PrSuite.DISABLED_Baseline' is already used by "
            "scenario 'baseline' (manifests/sets/pr.yaml:16)");
}

// --- shapes ---------------------------------------------------------------------------------------

TEST(SetManifestTest, ScalarWhereMapExpected) {
  EXPECT_EQ(ErrorOf("set: pr\ndefaults: 5\nscenarios: []\n"),
            "manifests/sets/pr.yaml:2: defaults must be a map, found a scalar");
  EXPECT_EQ(ErrorOf(Manifest("  - baseline\n")), "manifests/sets/pr.yaml:16: scenario 1 must be a map, found a scalar");
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    params: 4\n")),
            "manifests/sets/pr.yaml:18: params of scenario 'baseline' must be a map, found a scalar");
  EXPECT_EQ(ErrorOf("- a\n- b\n"), "manifests/sets/pr.yaml:1: the manifest must be a map, found a list");
}

TEST(SetManifestTest, MapWhereNumberExpected) {
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    rate_per_second: {a: 1}\n")),
            "manifests/sets/pr.yaml:18: key 'rate_per_second': expected a number, found a map");
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    load_seconds: [1, 2]\n")),
            "manifests/sets/pr.yaml:18: key 'load_seconds': expected a duration, found a list");
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    max_in_flight:\n")),
            "manifests/sets/pr.yaml:18: key 'max_in_flight': expected an integer, found nothing");
}

TEST(SetManifestTest, ScenariosMustBeANonEmptyList) {
  EXPECT_EQ(ErrorOf("set: pr\nscenarios: {}\n"),
            "manifests/sets/pr.yaml:2: key 'scenarios': expected a list of scenarios, found a map");
  EXPECT_EQ(ErrorOf("set: pr\nscenarios: []\n"),
            "manifests/sets/pr.yaml:2: key 'scenarios': the list is empty (a set runs at least one scenario)");
}

TEST(SetManifestTest, YamlSyntaxErrorHasFileAndLine) {
  EXPECT_THAT(ErrorOf("set: pr\nscenarios:\n  - name: [a, b\n"), StartsWith("manifests/sets/pr.yaml:"));
  EXPECT_THAT(ErrorOf("set: pr\nscenarios:\n  - name: [a, b\n"), HasSubstr(": YAML syntax error: "));
  EXPECT_THAT(ErrorOf("set: pr\n  bad: indent\n"), StartsWith("manifests/sets/pr.yaml:2: YAML syntax error: "));
}

TEST(SetManifestTest, AStrayCommaIsASyntaxErrorWithItsLineNotAHang) {
  // yaml-cpp 0.7's LoadAll loops forever on these (internal/yaml_documents.h); a 5 s alarm turns a
  // regression into a failed death test instead of a hung suite.
  EXPECT_EXIT(
      {
        ::alarm(5);
        std::fprintf(stderr, "%s\n", ErrorOf("set: pr\n---\n&anchor,\n").c_str());
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "manifests/sets/pr.yaml:3: YAML syntax error: unexpected ','");
}

TEST(SetManifestTest, EmptyAndMultiDocumentManifests) {
  EXPECT_EQ(ErrorOf(""), "manifests/sets/pr.yaml:1: the manifest is empty (expected a map with keys 'set' and "
                         "'scenarios')");
  EXPECT_EQ(ErrorOf("# only a comment\n"), ErrorOf(""));
  EXPECT_EQ(ErrorOf(Manifest(kBaseline) + "---\nset: other\n"),
            "manifests/sets/pr.yaml:19: the manifest holds more than one YAML document (expected exactly one)");
}

// --- values ---------------------------------------------------------------------------------------

TEST(SetManifestTest, BadDurations) {
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "load_seconds: 10", "load_seconds: 10x")),
            "manifests/sets/pr.yaml:4: key 'load_seconds': '10x' is not a duration (expected a number of "
            "seconds or a value like 90s, 2m, 500ms)");
  EXPECT_THAT(ErrorOf(Manifest(std::string(kBaseline) + "    settle_seconds: ten\n")),
              StartsWith("manifests/sets/pr.yaml:18: key 'settle_seconds': 'ten' is not a duration"));
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    settle_seconds: -3s\n")),
            "manifests/sets/pr.yaml:18: key 'settle_seconds': '-3s' must be >= 0");
}

TEST(SetManifestTest, BadNumbersAndBounds) {
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "rate_per_second: 100", "rate_per_second: fast")),
            "manifests/sets/pr.yaml:3: key 'rate_per_second': 'fast' is not a number");
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "rate_per_second: 100", "rate_per_second: 0")),
            "manifests/sets/pr.yaml:3: key 'rate_per_second': '0' must be > 0");
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "call_deadline_seconds: 2", "call_deadline_seconds: 0s")),
            "manifests/sets/pr.yaml:6: key 'call_deadline_seconds': '0s' must be > 0");
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "max_in_flight: 500", "max_in_flight: 0")),
            "manifests/sets/pr.yaml:7: key 'max_in_flight': '0' must be >= 1");
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "ledger_capacity: 1000", "ledger_capacity: 2.5")),
            "manifests/sets/pr.yaml:8: key 'ledger_capacity': '2.5' is not an integer");
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "max_outage_seconds: 5", "max_outage_seconds: -1")),
            "manifests/sets/pr.yaml:9: key 'max_outage_seconds': '-1' must be >= 0");
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "verify_concurrency: 4", "verify_concurrency: true")),
            "manifests/sets/pr.yaml:12: key 'verify_concurrency': 'true' is not an integer");
}

TEST(SetManifestTest, UndecidedRatioDefaultsToZeroAndIsValidated) {
  // The one knob with a built-in default: the strict one (verification decides every promise).
  EXPECT_EQ(ParseSetManifest(Manifest(kBaseline), kPath, Environment::FromMap({})).scenarios[0].max_undecided_ratio, 0);
  EXPECT_EQ(ParseSetManifest(Manifest(std::string(kBaseline) + "    max_undecided_ratio: 0.01\n"), kPath,
                             Environment::FromMap({}))
                .scenarios[0]
                .max_undecided_ratio,
            0.01);
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    max_undecided_ratio: 2\n")),
            "manifests/sets/pr.yaml:18: key 'max_undecided_ratio': '2' must be at least 0 and below 1 (1 allows "
            "everything: a gate that cannot fail)");
  // A bound of 1 allows every promise undecided: verification-decided could never fail.
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    max_undecided_ratio: 1\n")),
            "manifests/sets/pr.yaml:18: key 'max_undecided_ratio': '1' must be at least 0 and below 1 (1 allows "
            "everything: a gate that cannot fail)");
}

// A budget as long as the load stands in for "not judged here": an error unless the scenario says
// it does not judge availability, with its reason.
TEST(SetManifestTest, ABudgetAsLongAsTheLoadIsAnErrorUnlessAvailabilityIsDeclaredNotJudged) {
  const std::string long_outage = std::string(kBaseline) + "    load_seconds: 30\n    max_outage_seconds: 30\n";
  EXPECT_THAT(ErrorOf(Manifest(long_outage)),
              HasSubstr("scenario 'baseline': key 'max_outage_seconds' (30 s) is as long as the load (30 s): a "
                        "budget that cannot fail; if the scenario does not judge availability (an overload by "
                        "design), say so with availability_not_judged: <reason>"));
  const SetManifest m = ParseSetManifest(
      Manifest(long_outage + "    availability_not_judged: the overload stage is an overload by design\n"), kPath,
      Environment::FromMap({}));
  EXPECT_EQ(m.scenarios[0].availability_not_judged, "the overload stage is an overload by design");
  EXPECT_THAT(ErrorOf(Manifest(std::string(kBaseline) + "    availability_not_judged: ' '\n")),
              HasSubstr("key 'availability_not_judged': give the reason"));
}

TEST(SetManifestTest, EveryScenarioDeclaresALatencyBudgetOrSaysWhyNot) {
  const std::string without = Replaced(Manifest(kBaseline), "  max_latency_p99_seconds: 0.5\n", "");
  EXPECT_EQ(ErrorOf(without),
            "manifests/sets/pr.yaml:15: scenario 'baseline' has no latency budget: set max_latency_p99_seconds (the "
            "p99 of its successful calls' latency, under 'defaults:' or in the scenario, or with "
            "RESILIENCE_MAX_LATENCY_P99_SECONDS), or say why it judges none with latency_not_judged: <reason>");
  // The set's default, the scenario's own, the environment's: each is the budget.
  EXPECT_EQ(ParseSetManifest(Manifest(kBaseline), kPath, Environment::FromMap({})).scenarios[0].max_latency_p99_seconds,
            0.5);
  EXPECT_EQ(ParseSetManifest(without + "    max_latency_p99_seconds: 250ms\n", kPath, Environment::FromMap({}))
                .scenarios[0]
                .max_latency_p99_seconds,
            0.25);
  EXPECT_EQ(ParseSetManifest(without, kPath, Environment::FromMap({{"RESILIENCE_MAX_LATENCY_P99_SECONDS", "1s"}}))
                .scenarios[0]
                .max_latency_p99_seconds,
            1);
  // A reason instead: the set's default yields to it; the scenario's own budget beside it does not.
  const SetManifest m = ParseSetManifest(
      Manifest(std::string(kBaseline) + "    latency_not_judged: the failover's retries take up to the deadline\n"),
      kPath, Environment::FromMap({}));
  EXPECT_EQ(m.scenarios[0].max_latency_p99_seconds, std::nullopt);
  EXPECT_EQ(m.scenarios[0].latency_not_judged, "the failover's retries take up to the deadline");
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    latency_not_judged: slow by design\n" +
                             "    max_latency_p99_seconds: 1\n")),
            "manifests/sets/pr.yaml:18: scenario 'baseline' says latency_not_judged and also has a latency budget "
            "(max_latency_p99_seconds: 1 from line 19): keep one of them");
  EXPECT_THAT(ErrorOf(Manifest(std::string(kBaseline) + "    latency_not_judged: ''\n")),
              HasSubstr("pr.yaml:18: key 'latency_not_judged': give the reason"));
  // A budget no successful call can exceed (the call deadline is 2 s) cannot fail.
  EXPECT_THAT(ErrorOf(Manifest(std::string(kBaseline) + "    max_latency_p99_seconds: 2s\n")),
              HasSubstr("scenario 'baseline': key 'max_latency_p99_seconds' (2 s) is not below the call deadline "
                        "(2 s): no successful call can take longer, so the budget cannot fail"));
}

TEST(SetManifestTest, FaultsRequiredIsAFlagOfTheScenario) {
  EXPECT_FALSE(ParseSetManifest(Manifest(kBaseline), kPath, Environment::FromMap({})).scenarios[0].faults_required);
  EXPECT_TRUE(ParseSetManifest(Manifest(std::string(kBaseline) + "    faults_required: true\n"), kPath,
                               Environment::FromMap({}))
                  .scenarios[0]
                  .faults_required);
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    faults_required: yes\n")),
            "manifests/sets/pr.yaml:18: key 'faults_required': 'yes' is not true or false");
}

TEST(SetManifestTest, TheRetryBudgetDefaultsToFivePercentAndIsValidated) {
  EXPECT_EQ(ParseSetManifest(Manifest(kBaseline), kPath, Environment::FromMap({})).scenarios[0].max_retries_per_call,
            0.05);
  EXPECT_EQ(ParseSetManifest(Manifest(std::string(kBaseline) + "    max_retries_per_call: 0.4\n"), kPath,
                             Environment::FromMap({}))
                .scenarios[0]
                .max_retries_per_call,
            0.4);
  EXPECT_THAT(ErrorOf(Manifest(std::string(kBaseline) + "    max_retries_per_call: -1\n")),
              HasSubstr("pr.yaml:18: key 'max_retries_per_call'"));
}

TEST(SetManifestTest, ConvergeTimeoutDefaultsToThirtySecondsAndIsAValidatedDuration) {
  EXPECT_EQ(ParseSetManifest(Manifest(kBaseline), kPath, Environment::FromMap({})).scenarios[0].converge_timeout_seconds,
            30);
  EXPECT_EQ(ParseSetManifest(Manifest(std::string(kBaseline) + "    converge_timeout_seconds: 2m\n"), kPath,
                             Environment::FromMap({}))
                .scenarios[0]
                .converge_timeout_seconds,
            120);
  EXPECT_EQ(ParseSetManifest(Manifest(kBaseline), kPath,
                             Environment::FromMap({{"RESILIENCE_CONVERGE_TIMEOUT_SECONDS", "500ms"}}))
                .scenarios[0]
                .converge_timeout_seconds,
            0.5);
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    converge_timeout_seconds: -1s\n")),
            "manifests/sets/pr.yaml:18: key 'converge_timeout_seconds': '-1s' must be >= 0");
}

TEST(SetManifestTest, DispatchCoalesceDefaultsToZeroAndIsAValidatedDuration) {
  EXPECT_EQ(ParseSetManifest(Manifest(kBaseline), kPath, Environment::FromMap({})).scenarios[0].dispatch_coalesce_seconds,
            0);
  EXPECT_DOUBLE_EQ(ParseSetManifest(Manifest(std::string(kBaseline) + "    dispatch_coalesce_seconds: 0.5ms\n"), kPath,
                                    Environment::FromMap({}))
                       .scenarios[0]
                       .dispatch_coalesce_seconds,
                   0.0005);
  EXPECT_DOUBLE_EQ(ParseSetManifest(Manifest(kBaseline), kPath,
                                    Environment::FromMap({{"RESILIENCE_DISPATCH_COALESCE_SECONDS", "1ms"}}))
                       .scenarios[0]
                       .dispatch_coalesce_seconds,
                   0.001);
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    dispatch_coalesce_seconds: -1ms\n")),
            "manifests/sets/pr.yaml:18: key 'dispatch_coalesce_seconds': '-1ms' must be >= 0");
}

TEST(SetManifestTest, DispatchWakeSliceDefaultsToZeroAndIsAValidatedDuration) {
  const auto slice = [](const std::string& manifest, const Environment& env) {
    return ParseSetManifest(manifest, kPath, env).scenarios[0].dispatch_wake_slice_seconds;
  };
  EXPECT_EQ(slice(Manifest(kBaseline), Environment::FromMap({})), 0);
  EXPECT_DOUBLE_EQ(slice(Manifest(std::string(kBaseline) + "    dispatch_wake_slice_seconds: 0.1ms\n"),
                         Environment::FromMap({})),
                   0.0001);
  EXPECT_DOUBLE_EQ(slice(Manifest(kBaseline), Environment::FromMap({{"RESILIENCE_DISPATCH_WAKE_SLICE_SECONDS", "0.2ms"}})),
                   0.0002);
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    dispatch_wake_slice_seconds: -1ms\n")),
            "manifests/sets/pr.yaml:18: key 'dispatch_wake_slice_seconds': '-1ms' must be >= 0");
}

TEST(SetManifestTest, MaxDispatchLagDefaultsToTenMillisecondsAndIsAValidatedDuration) {
  EXPECT_DOUBLE_EQ(
      ParseSetManifest(Manifest(kBaseline), kPath, Environment::FromMap({})).scenarios[0].max_dispatch_lag_seconds,
      0.010);
  EXPECT_DOUBLE_EQ(ParseSetManifest(Manifest(std::string(kBaseline) + "    max_dispatch_lag_seconds: 50ms\n"), kPath,
                                    Environment::FromMap({}))
                       .scenarios[0]
                       .max_dispatch_lag_seconds,
                   0.050);
  EXPECT_DOUBLE_EQ(ParseSetManifest(Manifest(kBaseline), kPath,
                                    Environment::FromMap({{"RESILIENCE_MAX_DISPATCH_LAG_SECONDS", "2ms"}}))
                       .scenarios[0]
                       .max_dispatch_lag_seconds,
                   0.002);
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    max_dispatch_lag_seconds: 0ms\n")),
            "manifests/sets/pr.yaml:18: key 'max_dispatch_lag_seconds': '0ms' must be > 0");
}

TEST(SetManifestTest, MaxGapSecondsIsOptionalDefaultsToTheOutageBudgetAndIsValidated) {
  // Under defaults, per scenario (a duration), and the scenario's own outage budget as the default.
  const std::string yaml = Replaced(Manifest(std::string(kBaseline) + R"(  - name: own-gap
    test: PrSuite.DISABLED_OwnGap
    max_gap_seconds: 1500ms
  - name: own-outage
    test: PrSuite.DISABLED_OwnOutage
    max_outage_seconds: 8
)"), "  max_outage_seconds: 5\n", "  max_outage_seconds: 5\n  max_gap_seconds: 2.5\n");
  const SetManifest set = Parse(yaml);
  ASSERT_EQ(set.scenarios.size(), 3u);
  EXPECT_EQ(set.scenarios[0].max_gap_seconds, 2.5);
  EXPECT_EQ(set.scenarios[1].max_gap_seconds, 1.5);
  EXPECT_EQ(set.scenarios[2].max_gap_seconds, 2.5);  // the defaults' gap beats the outage fallback
  const SetManifest fallback = Parse(Manifest(std::string(kBaseline) + R"(  - name: own-outage
    test: PrSuite.DISABLED_OwnOutage
    max_outage_seconds: 8
)"));
  EXPECT_EQ(fallback.scenarios[1].max_gap_seconds, 8);  // the scenario's resolved outage budget
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "  max_outage_seconds: 5\n", "  max_outage_seconds: 5\n  max_gap_seconds: -1\n")),
            "manifests/sets/pr.yaml:10: key 'max_gap_seconds': '-1' must be >= 0");
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "  max_outage_seconds: 5\n", "  max_outage_seconds: 5\n  max_gap_seconds: soon\n")),
            "manifests/sets/pr.yaml:10: key 'max_gap_seconds': 'soon' is not a duration (expected a number of "
            "seconds or a value like 90s, 2m, 500ms)");
}

TEST(SetManifestTest, KnobSetNowhereIsAnError) {
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kBaseline), "  ledger_capacity: 1000\n", "")),
            "manifests/sets/pr.yaml:15: scenario 'baseline' has no value for key 'ledger_capacity' (set it "
            "under 'defaults:', in the scenario, or with RESILIENCE_LEDGER_CAPACITY)");
}

TEST(SetManifestTest, TimeoutMustExceedLoadPlusSettle) {
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    timeout_seconds: 11\n")),
            "manifests/sets/pr.yaml:16: scenario 'baseline': key 'timeout_seconds' (11 s) must exceed the load "
            "(10 s) plus settle_seconds (1 s), or the scenario can never finish");
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    timeout_seconds: 11.5\n")), "<no error>");
}

// --- profiles -------------------------------------------------------------------------------------

TEST(SetManifestProfileTest, ParsesAllStageKinds) {
  const ScenarioConfig c = Parse(Manifest(kProfiled)).scenarios[0];
  ASSERT_EQ(c.profile.size(), 3u);
  EXPECT_EQ(c.profile[0].name, "warm-up");
  EXPECT_EQ(c.profile[0].kind, load::StageKind::kConstant);
  EXPECT_EQ(c.profile[0].rate_from, 60);
  EXPECT_EQ(c.profile[0].duration_seconds, 30);
  EXPECT_EQ(c.profile[1].kind, load::StageKind::kLinearRamp);
  EXPECT_EQ(c.profile[1].rate_from, 60);
  EXPECT_EQ(c.profile[1].rate_to, 400);
  EXPECT_EQ(c.profile[1].duration_seconds, 20);
  EXPECT_EQ(c.profile[2].kind, load::StageKind::kSteps);
  EXPECT_EQ(c.profile[2].rate_from, 100);
  EXPECT_EQ(c.profile[2].rate_to, 400);
  EXPECT_EQ(c.profile[2].steps, 4);
  EXPECT_EQ(c.profile[2].duration_seconds, 40);
  EXPECT_EQ(c.PeakRate(), 400);
  EXPECT_EQ(c.ProfileSeconds(), 90);
  EXPECT_EQ(c.load_seconds, 90);      // from the stages, not the default 10
  EXPECT_EQ(c.rate_per_second, 100);  // the configured knob
}

TEST(SetManifestProfileTest, ParsesSpikeAndSoak) {
  const std::string yaml = Replaced(
      Manifest(kProfiled), "      - {name: steps, kind: steps, from: 100, to: 400, steps: 4, duration: 40s}\n",
      "      - {name: spike, kind: spike, from: 100, to: 900, at: 10s, spike: 5s, duration: 40s}\n"
      "      - {name: soak, kind: soak, rate: 50, duration: 5m}\n");
  const ScenarioConfig c = Parse(yaml).scenarios[0];
  ASSERT_EQ(c.profile.size(), 4u);
  EXPECT_EQ(c.profile[2].kind, load::StageKind::kSpike);
  EXPECT_EQ(c.profile[2].rate_to, 900);
  EXPECT_EQ(c.profile[2].spike_at_seconds, 10);
  EXPECT_EQ(c.profile[2].spike_seconds, 5);
  EXPECT_EQ(c.profile[3].kind, load::StageKind::kSoak);
  EXPECT_EQ(c.profile[3].rate_from, 50);
  EXPECT_EQ(c.PeakRate(), 900);
  EXPECT_EQ(ErrorOf(Replaced(yaml, "spike: 5s, duration: 40s", "spike: 35s, duration: 40s")),
            "manifests/sets/pr.yaml:22: key 'spike': the burst (at + spike) must end within the stage's duration");
}

TEST(SetManifestProfileTest, RateDefaultsToPeakWhenSetNowhere) {
  const std::string yaml = Replaced(Manifest(kProfiled), "  rate_per_second: 100\n", "");
  EXPECT_EQ(Parse(yaml).scenarios[0].rate_per_second, 400);
}

TEST(SetManifestProfileTest, ExplicitLoadSecondsMustAgree) {
  EXPECT_EQ(ErrorOf(Manifest(std::string(kProfiled) + "    load_seconds: 1.5m\n")), "<no error>");
  EXPECT_EQ(ErrorOf(Manifest(std::string(kProfiled) + "    load_seconds: 60\n")),
            "manifests/sets/pr.yaml:23: key 'load_seconds': 60 disagrees with the profile of scenario 'ramping', "
            "whose stages add up to 90 s (leave load_seconds out, or make them agree)");
}

TEST(SetManifestProfileTest, UnknownKind) {
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kProfiled), "kind: ramp", "kind: spiky")),
            "manifests/sets/pr.yaml:21: key 'kind': 'spiky' is not a stage kind (known: constant, ramp, steps, "
            "spike, soak)");
}

TEST(SetManifestProfileTest, KeyThatDoesNotApplyToTheKind) {
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kProfiled), "rate: 60,", "rate: 60, to: 70,")),
            "manifests/sets/pr.yaml:20: key 'to' does not apply to a constant stage (constant takes: name, kind, "
            "rate, duration)");
  EXPECT_THAT(ErrorOf(Replaced(Manifest(kProfiled), "rate: 60,", "rat: 60,")),
              StartsWith("manifests/sets/pr.yaml:20: key 'rat' is not known (known: name, kind, rate, from, to, "
                         "steps, at, spike, duration)"));
}

TEST(SetManifestProfileTest, MissingStageKey) {
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kProfiled), ", duration: 20s}", "}")),
            "manifests/sets/pr.yaml:21: profile stage 2 of scenario 'ramping' has no key 'duration' (required)");
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kProfiled), "steps: 4, ", "")),
            "manifests/sets/pr.yaml:22: profile stage 3 of scenario 'ramping' has no key 'steps' (required)");
}

TEST(SetManifestProfileTest, BadStageValues) {
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kProfiled), "rate: 60", "rate: lots")),
            "manifests/sets/pr.yaml:20: key 'rate': 'lots' is not a number");
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kProfiled), "to: 400, duration: 20s", "to: -4, duration: 20s")),
            "manifests/sets/pr.yaml:21: key 'to': '-4' must be >= 0");
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kProfiled), "duration: 30s", "duration: 0")),
            "manifests/sets/pr.yaml:20: key 'duration': '0' must be > 0");
  EXPECT_THAT(ErrorOf(Replaced(Manifest(kProfiled), "duration: 30s", "duration: 30x")),
              StartsWith("manifests/sets/pr.yaml:20: key 'duration': '30x' is not a duration"));
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kProfiled), "steps: 4", "steps: 0")),
            "manifests/sets/pr.yaml:22: key 'steps': '0' must be >= 1");
}

TEST(SetManifestProfileTest, DuplicateStageNames) {
  EXPECT_EQ(ErrorOf(Replaced(Manifest(kProfiled), "name: ramp,", "name: warm-up,")),
            "manifests/sets/pr.yaml:21: key 'name': stage name 'warm-up' appears twice in the profile of scenario "
            "'ramping' (first at line 20)");
}

TEST(SetManifestProfileTest, ProfileShapes) {
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    profile: []\n")),
            "manifests/sets/pr.yaml:18: key 'profile': the list of stages is empty (leave 'profile' out for one "
            "constant stage of rate_per_second for load_seconds)");
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    profile: fast\n")),
            "manifests/sets/pr.yaml:18: key 'profile': expected a list of stages, found a scalar");
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    profile:\n      - constant\n")),
            "manifests/sets/pr.yaml:19: profile stage 1 of scenario 'baseline' must be a map, found a scalar");
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) +
                             "    profile:\n      - {name: idle, kind: constant, rate: 0, duration: 5}\n")),
            "manifests/sets/pr.yaml:18: key 'profile': no stage offers load (every rate is 0) in scenario "
            "'baseline'");
}

// --- params ---------------------------------------------------------------------------------------

TEST(SetManifestParamsTest, ParamsKeepTheirLines) {
  const SetManifest set = Parse(Manifest(std::string(kBaseline) + R"(    params:
      stall_at_seconds: 4
      stall_seconds: 2s
      mode: soft
)"));
  const ScenarioParams& params = set.scenarios[0].params;
  EXPECT_EQ(params.Keys(), (std::vector<std::string>{"mode", "stall_at_seconds", "stall_seconds"}));
  EXPECT_EQ(params.SourceOf("stall_seconds"), "manifests/sets/pr.yaml:20");
  EXPECT_EQ(params.GetDuration("stall_seconds"), 2);
  EXPECT_EQ(params.Unread(), (std::vector<std::string>{"mode", "stall_at_seconds"}));
  try {
    params.GetDouble("mode");
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "manifests/sets/pr.yaml:21: key 'mode': 'soft' is not a number (params of scenario "
                           "'baseline')");
  }
}

TEST(SetManifestParamsTest, ParamValuesMustBeScalars) {
  EXPECT_EQ(ErrorOf(Manifest(std::string(kBaseline) + "    params:\n      stall: {at: 4}\n")),
            "manifests/sets/pr.yaml:19: key 'stall': expected a scalar, found a map");
}

TEST(SetManifestTest, LoadReportsUnreadableFile) {
  try {
    LoadSetManifest("/nonexistent/dir/pr.yaml", Environment());
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/dir/pr.yaml: cannot read the set manifest (No such file or directory)");
  }
}

}  // namespace
}  // namespace aftershock::config
