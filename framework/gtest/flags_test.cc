#include "framework/gtest/flags.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::gtest_integration {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

GetEnvFn FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

const GetEnvFn kNoEnv = FakeEnv({});

std::string ErrorOf(std::vector<std::string> args, const GetEnvFn& env = kNoEnv) {
  try {
    ParseFlags(args, env);
  } catch (const FlagError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(Flags, DefaultsWithoutFlagsOrEnvironment) {
  std::vector<std::string> args = {"suite", "--gtest_filter=*X*"};
  const Flags flags = ParseFlags(args, kNoEnv);
  EXPECT_EQ(flags.set, "");
  EXPECT_EQ(flags.manifest, "");
  EXPECT_EQ(flags.artifacts_dir, "artifacts");
  EXPECT_EQ(flags.progress_seconds, 5);
  EXPECT_EQ(flags.list_ctest, "");
  EXPECT_EQ(flags.cluster_driver, "local");
  EXPECT_EQ(flags.service_target, "");
  EXPECT_FALSE(flags.resilience_selection());
  EXPECT_FALSE(flags.list_ctest_mode());
  EXPECT_THAT(args, ElementsAre("suite", "--gtest_filter=*X*"));
}

TEST(Flags, ParsesEveryFlagAndRemovesThemFromArgs) {
  std::vector<std::string> args = {"suite",
                                   "--aftershock_set=pr",
                                   "--gtest_also_run_disabled_tests",
                                   "--aftershock_manifest=manifests/sets/pr.yaml",
                                   "--aftershock_artifacts_dir=/tmp/a b",
                                   "--aftershock_progress_seconds=0",
                                   "--aftershock_list_ctest=out/x.cmake",
                                   "--aftershock_halt_file=/run/aftershock/halt",
                                   "--aftershock_cluster_driver=kubernetes",
                                   "--aftershock_service_target=dns:///svc.ns.svc.cluster.local:8081",
                                   "positional"};
  const Flags flags = ParseFlags(args, kNoEnv);
  EXPECT_EQ(flags.set, "pr");
  EXPECT_EQ(flags.manifest, "manifests/sets/pr.yaml");
  EXPECT_EQ(flags.artifacts_dir, "/tmp/a b");
  EXPECT_EQ(flags.progress_seconds, 0);
  EXPECT_EQ(flags.list_ctest, "out/x.cmake");
  EXPECT_EQ(flags.halt_file, "/run/aftershock/halt");
  EXPECT_EQ(flags.cluster_driver, "kubernetes");
  EXPECT_EQ(flags.service_target, "dns:///svc.ns.svc.cluster.local:8081");
  EXPECT_TRUE(flags.resilience_selection());
  EXPECT_TRUE(flags.list_ctest_mode());
  EXPECT_THAT(args, ElementsAre("suite", "--gtest_also_run_disabled_tests", "positional"));
}

TEST(Flags, ValueMayContainEqualsSign) {
  std::vector<std::string> args = {"--aftershock_manifest=a=b.yaml"};
  EXPECT_EQ(ParseFlags(args, kNoEnv).manifest, "a=b.yaml");
  EXPECT_TRUE(args.empty());
}

TEST(Flags, LastOccurrenceWins) {
  std::vector<std::string> args = {"--aftershock_set=a", "--aftershock_set=b"};
  EXPECT_EQ(ParseFlags(args, kNoEnv).set, "b");
}

TEST(Flags, EnvironmentFallback) {
  std::vector<std::string> args = {"suite"};
  const Flags flags = ParseFlags(args, FakeEnv({{"AFTERSHOCK_SET", "weekly"},
                                                {"AFTERSHOCK_MANIFEST", "m.yaml"},
                                                {"AFTERSHOCK_ARTIFACTS_DIR", "out"},
                                                {"AFTERSHOCK_PROGRESS_SECONDS", "30"},
                                                {"AFTERSHOCK_HALT_FILE", "/tmp/halt"},
                                                {"AFTERSHOCK_CLUSTER_DRIVER", "kubernetes"},
                                                {"AFTERSHOCK_SERVICE_TARGET", "dns:///x:1"}}));
  EXPECT_EQ(flags.set, "weekly");
  EXPECT_EQ(flags.cluster_driver, "kubernetes");
  EXPECT_EQ(flags.service_target, "dns:///x:1");
  EXPECT_EQ(flags.halt_file, "/tmp/halt");
  EXPECT_EQ(flags.manifest, "m.yaml");
  EXPECT_EQ(flags.artifacts_dir, "out");
  EXPECT_EQ(flags.progress_seconds, 30);
  EXPECT_EQ(flags.list_ctest, "");
}

TEST(Flags, CommandLineWinsOverEnvironment) {
  std::vector<std::string> args = {"--aftershock_set=pr", "--aftershock_progress_seconds=2"};
  const Flags flags =
      ParseFlags(args, FakeEnv({{"AFTERSHOCK_SET", "weekly"}, {"AFTERSHOCK_PROGRESS_SECONDS", "30"},
                                {"AFTERSHOCK_ARTIFACTS_DIR", "from-env"}}));
  EXPECT_EQ(flags.set, "pr");
  EXPECT_EQ(flags.progress_seconds, 2);
  EXPECT_EQ(flags.artifacts_dir, "from-env");
}

TEST(Flags, EmptyEnvironmentVariableCountsAsUnset) {
  std::vector<std::string> args;
  const Flags flags = ParseFlags(args, FakeEnv({{"AFTERSHOCK_SET", ""}, {"AFTERSHOCK_ARTIFACTS_DIR", ""}}));
  EXPECT_EQ(flags.set, "");
  EXPECT_EQ(flags.artifacts_dir, "artifacts");
}

TEST(Flags, ListCtestHasNoEnvironmentVariable) {
  std::vector<std::string> args;
  EXPECT_EQ(ParseFlags(args, FakeEnv({{"AFTERSHOCK_LIST_CTEST", "x"}})).list_ctest, "");
}

TEST(Flags, NullGetEnvIsAllowed) {
  std::vector<std::string> args = {"--aftershock_set=pr"};
  EXPECT_EQ(ParseFlags(args, GetEnvFn()).set, "pr");
}

TEST(Flags, UnknownFlagNamesItAndListsKnownOnes) {
  EXPECT_EQ(ErrorOf({"suite", "--aftershock_sett=pr"}),
            "unknown flag --aftershock_sett (known: --aftershock_set, --aftershock_manifest, "
            "--aftershock_artifacts_dir, --aftershock_progress_seconds, --aftershock_halt_file, "
            "--aftershock_cluster_driver, --aftershock_service_target, --aftershock_list_ctest)");
  EXPECT_THAT(ErrorOf({"--aftershock_bogus"}), HasSubstr("unknown flag --aftershock_bogus (known: "));
  EXPECT_THAT(ErrorOf({"--aftershock-set=pr"}), HasSubstr("unknown flag --aftershock-set (known: "));
}

TEST(Flags, ClusterDriverIsLocalOrKubernetesAndNothingElse) {
  EXPECT_EQ(ErrorOf({"--aftershock_cluster_driver=k8s"}),
            "bad value 'k8s' for --aftershock_cluster_driver: expected local or kubernetes");
  std::vector<std::string> args;
  try {
    ParseFlags(args, FakeEnv({{"AFTERSHOCK_CLUSTER_DRIVER", "Kubernetes"}}));
    ADD_FAILURE() << "AFTERSHOCK_CLUSTER_DRIVER=Kubernetes accepted";
  } catch (const FlagError& e) {
    EXPECT_STREQ(e.what(), "bad value 'Kubernetes' for AFTERSHOCK_CLUSTER_DRIVER: expected local or kubernetes");
  }
}

TEST(Flags, SingleDashIsAnErrorNotASilentlyIgnoredFlag) {
  EXPECT_THAT(ErrorOf({"-aftershock_set=pr"}),
              HasSubstr("flag -aftershock_set=pr: aftershock flags take two dashes"));
}

TEST(Flags, FlagWithoutValue) {
  EXPECT_EQ(ErrorOf({"--aftershock_set"}), "flag --aftershock_set needs a value: --aftershock_set=NAME");
  EXPECT_EQ(ErrorOf({"--aftershock_artifacts_dir="}),
            "flag --aftershock_artifacts_dir needs a value: --aftershock_artifacts_dir=DIR");
  EXPECT_EQ(ErrorOf({"--aftershock_progress_seconds"}),
            "flag --aftershock_progress_seconds needs a value: --aftershock_progress_seconds=N");
  EXPECT_EQ(ErrorOf({"--aftershock_manifest"}), "flag --aftershock_manifest needs a value: --aftershock_manifest=PATH");
  EXPECT_EQ(ErrorOf({"--aftershock_list_ctest"}),
            "flag --aftershock_list_ctest needs a value: --aftershock_list_ctest=PATH");
}

TEST(Flags, BadProgressSeconds) {
  const std::string expected_tail = ": expected a whole number of seconds from 0 to 86400";
  EXPECT_EQ(ErrorOf({"--aftershock_progress_seconds=abc"}),
            "bad value 'abc' for --aftershock_progress_seconds" + expected_tail);
  EXPECT_EQ(ErrorOf({"--aftershock_progress_seconds=-1"}),
            "bad value '-1' for --aftershock_progress_seconds" + expected_tail);
  EXPECT_EQ(ErrorOf({"--aftershock_progress_seconds=5s"}),
            "bad value '5s' for --aftershock_progress_seconds" + expected_tail);
  EXPECT_EQ(ErrorOf({"--aftershock_progress_seconds=86401"}),
            "bad value '86401' for --aftershock_progress_seconds" + expected_tail);
  EXPECT_EQ(ErrorOf({"--aftershock_progress_seconds=99999999999999"}),
            "bad value '99999999999999' for --aftershock_progress_seconds" + expected_tail);
  std::vector<std::string> args = {"--aftershock_progress_seconds=86400"};
  EXPECT_EQ(ParseFlags(args, kNoEnv).progress_seconds, 86400);
}

TEST(Flags, BadValueFromEnvironmentNamesTheVariable) {
  EXPECT_EQ(ErrorOf({}, FakeEnv({{"AFTERSHOCK_PROGRESS_SECONDS", "fast"}})),
            "bad value 'fast' for AFTERSHOCK_PROGRESS_SECONDS: expected a whole number of seconds from 0 to 86400");
  EXPECT_EQ(ErrorOf({}, FakeEnv({{"AFTERSHOCK_SET", "a/b"}})),
            "bad value 'a/b' for AFTERSHOCK_SET: expected a name of letters, digits, '.', '_' or '-'");
}

TEST(Flags, SetNameMustBeOnePlainWord) {
  EXPECT_EQ(ErrorOf({"--aftershock_set=pr weekly"}),
            "bad value 'pr weekly' for --aftershock_set: expected a name of letters, digits, '.', '_' or '-'");
  EXPECT_THAT(ErrorOf({"--aftershock_set=.."}), HasSubstr("bad value '..' for --aftershock_set"));
  EXPECT_THAT(ErrorOf({"--aftershock_set=../x"}), HasSubstr("bad value '../x' for --aftershock_set"));
  std::vector<std::string> args = {"--aftershock_set=Banking-2.v_1"};
  EXPECT_EQ(ParseFlags(args, kNoEnv).set, "Banking-2.v_1");
}

TEST(Flags, ErrorLeavesArgsUntouched) {
  std::vector<std::string> args = {"suite", "--aftershock_set=pr", "--aftershock_nope=1"};
  EXPECT_THROW(ParseFlags(args, kNoEnv), FlagError);
  EXPECT_THAT(args, ElementsAre("suite", "--aftershock_set=pr", "--aftershock_nope=1"));
}

TEST(Flags, CurrentFlagsDefaultsAndScopedInstall) {
  EXPECT_EQ(CurrentFlags().artifacts_dir, "artifacts");
  EXPECT_EQ(CurrentFlags().set, "");
  {
    Flags flags;
    flags.set = "pr";
    const ScopedCurrentFlags outer(flags);
    EXPECT_EQ(CurrentFlags().set, "pr");
    {
      flags.set = "weekly";
      const ScopedCurrentFlags inner(flags);
      EXPECT_EQ(CurrentFlags().set, "weekly");
    }
    EXPECT_EQ(CurrentFlags().set, "pr");
  }
  EXPECT_EQ(CurrentFlags().set, "");
}

TEST(Flags, HelpMentionsEveryFlag) {
  const std::string help = FlagsHelp();
  for (const char* flag : {"--aftershock_set=NAME", "--aftershock_manifest=PATH", "--aftershock_artifacts_dir=DIR",
                           "--aftershock_progress_seconds=N", "--aftershock_halt_file=PATH",
                           "--aftershock_cluster_driver=local|kubernetes", "--aftershock_service_target=TARGET",
                           "--aftershock_list_ctest=PATH"}) {
    EXPECT_THAT(help, HasSubstr(flag));
  }
}

// --- GoogleTest's own flags (googletest 1.12 would print its help and exit 0) ----------------------

std::string GtestFlagError(std::vector<std::string> args) {
  args.insert(args.begin(), "suite");
  try {
    CheckGtestFlags(args);
  } catch (const FlagError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(GtestFlags, EveryFormGoogletestParsesPasses) {
  EXPECT_EQ(GtestFlagError({"--gtest_filter=*X*", "--gtest_also_run_disabled_tests", "--gtest_brief=1",
                            "--gtest_repeat=-1", "--gtest_random_seed=42", "--gtest_output=xml:a.xml",
                            "--gtest_color=no", "--gtest_list_tests", "--gtest_shuffle=false",
                            "--gtest_stack_trace_depth=0", "--gtest_fail_fast", "--gtest_death_test_style=fast",
                            "--gtest_internal_run_death_test=x", "--gtest_internal_anything"}),
            "<no error>");
  // Not flags of GoogleTest at all, or the help main prints.
  EXPECT_EQ(GtestFlagError({"positional", "-x", "--other", "/tmp/gtest_data", "--gtest_help", "-gtest_help"}),
            "<no error>");
  // argv[0] is never a flag.
  EXPECT_NO_THROW(CheckGtestFlags({"--gtest_filtr=x"}));
}

TEST(GtestFlags, UnknownNameIsNamedWithTheNearestKnownOne) {
  EXPECT_THAT(GtestFlagError({"--gtest_filtr=x"}),
              AllOf(HasSubstr("unknown GoogleTest flag --gtest_filtr (did you mean --gtest_filter?)"),
                    HasSubstr("GoogleTest would print its help and exit 0")));
  EXPECT_THAT(GtestFlagError({"--gtest_also_run_disabled"}),
              HasSubstr("unknown GoogleTest flag --gtest_also_run_disabled (did you mean "
                        "--gtest_also_run_disabled_tests?)"));
  EXPECT_THAT(GtestFlagError({"--gtest_zzz"}), AllOf(HasSubstr("unknown GoogleTest flag --gtest_zzz"),
                                                      Not(HasSubstr("did you mean"))));
  // Defined by googletest 1.12 but not parsed by it: help and exit 0 as well.
  EXPECT_THAT(GtestFlagError({"--gtest_show_internal_stack_frames"}),
              HasSubstr("unknown GoogleTest flag --gtest_show_internal_stack_frames"));
}

TEST(GtestFlags, OtherSpellingsGoogletestDoesNotParseAreRefused) {
  EXPECT_THAT(GtestFlagError({"-gtest_filter=x"}),
              HasSubstr("GoogleTest flag -gtest_filter=x must be spelled --gtest_filter=x"));
  EXPECT_THAT(GtestFlagError({"/gtest_filter=x"}),
              HasSubstr("GoogleTest flag /gtest_filter=x must be spelled --gtest_filter=x"));
  EXPECT_THAT(GtestFlagError({"--gtest-filter=x"}),
              HasSubstr("GoogleTest flag --gtest-filter=x must be spelled --gtest_filter=x"));
  EXPECT_THAT(GtestFlagError({"-gtest_brief"}), HasSubstr("must be spelled --gtest_brief"));
}

TEST(GtestFlags, ValueMustFollowTheEqualsSign) {
  EXPECT_THAT(GtestFlagError({"--gtest_filter", "*X*"}),
              HasSubstr("GoogleTest flag --gtest_filter needs its value after '=': --gtest_filter=VALUE"));
  EXPECT_THAT(GtestFlagError({"--gtest_repeat"}), HasSubstr("--gtest_repeat needs its value after '='"));
  EXPECT_THAT(GtestFlagError({"--gtest_repeat=twice"}),
              HasSubstr("bad value 'twice' for --gtest_repeat: expected a whole number"));
  EXPECT_THAT(GtestFlagError({"--gtest_random_seed=99999999999"}), HasSubstr("bad value '99999999999'"));
  EXPECT_THAT(GtestFlagError({"--gtest_random_seed="}), HasSubstr("bad value ''"));
}

TEST(GtestFlags, FlagFileLinesAreCheckedToo) {
  const std::string path = ::testing::TempDir() + "/aftershock_flags_test_flagfile";
  {
    std::ofstream f(path);
    f << "--gtest_filter=*X*\n\n--gtest_brief\n--gtest_filtr=y\n";
  }
  EXPECT_THAT(GtestFlagError({"--gtest_flagfile=" + path}),
              AllOf(HasSubstr("unknown GoogleTest flag --gtest_filtr"),
                    HasSubstr("in --gtest_flagfile=" + path + " line 4")));
  {
    std::ofstream f(path);
    f << "--gtest_filter=*X*\n";
  }
  EXPECT_EQ(GtestFlagError({"--gtest_flagfile=" + path}), "<no error>");
  {
    std::ofstream f(path);
    f << "positional\n";
  }
  EXPECT_THAT(GtestFlagError({"--gtest_flagfile=" + path}), HasSubstr("'positional' in --gtest_flagfile="));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace aftershock::gtest_integration
