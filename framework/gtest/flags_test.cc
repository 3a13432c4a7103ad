#include "framework/gtest/flags.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::gtest_integration {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

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
                                   "positional"};
  const Flags flags = ParseFlags(args, kNoEnv);
  EXPECT_EQ(flags.set, "pr");
  EXPECT_EQ(flags.manifest, "manifests/sets/pr.yaml");
  EXPECT_EQ(flags.artifacts_dir, "/tmp/a b");
  EXPECT_EQ(flags.progress_seconds, 0);
  EXPECT_EQ(flags.list_ctest, "out/x.cmake");
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
                                                {"AFTERSHOCK_PROGRESS_SECONDS", "30"}}));
  EXPECT_EQ(flags.set, "weekly");
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
            "--aftershock_artifacts_dir, --aftershock_progress_seconds, --aftershock_list_ctest)");
  EXPECT_THAT(ErrorOf({"--aftershock_bogus"}), HasSubstr("unknown flag --aftershock_bogus (known: "));
  EXPECT_THAT(ErrorOf({"--aftershock-set=pr"}), HasSubstr("unknown flag --aftershock-set (known: "));
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
                           "--aftershock_progress_seconds=N", "--aftershock_list_ctest=PATH"}) {
    EXPECT_THAT(help, HasSubstr(flag));
  }
}

}  // namespace
}  // namespace aftershock::gtest_integration
