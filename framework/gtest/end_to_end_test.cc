// End-to-end checks of aftershock_gtest_main on the guard_probe suite binary, run as a child
// process: exit codes, the empty-run guard, the timeline markers' place in stdout, the flags, the
// --aftershock_list_ctest mode and the second-interrupt behaviour.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "framework/gtest/internal/test_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::gtest_integration {
namespace {

using internal::ProcessResult;
using internal::ReadFile;
using internal::RunProcess;
using internal::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kGuardMessage[] = "aftershock: the resilience selection for set 'x' executed no scenario";

class GuardProbe : public ::testing::Test {
 protected:
  // Runs guard_probe with `args` and exactly `env`, artifacts into the temp folder.
  ProcessResult Run(std::vector<std::string> args, std::vector<std::string> env = {}) {
    args.insert(args.begin(), AFTERSHOCK_GUARD_PROBE_PATH);
    args.push_back("--aftershock_artifacts_dir=" + artifacts().string());
    ProcessResult r = RunProcess(args, env, tmp_.path());
    EXPECT_FALSE(r.timed_out);
    return r;
  }
  std::filesystem::path artifacts() const { return tmp_.path() / "artifacts"; }

  TempDir tmp_;
};

TEST_F(GuardProbe, SelectionWithoutAlsoRunDisabledFailsWithTheGuardMessage) {  // (a)
  const ProcessResult r = Run({"--aftershock_set=x", "--gtest_filter=*Emits*"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr(std::string(kGuardMessage) +
                               " (filter '*Emits*', also_run_disabled_tests=0, skipped scenarios=0): a run that "
                               "executes nothing must not look green"));
  EXPECT_THAT(r.out, Not(HasSubstr("##aftershock BEGIN")));
  // Restated as the last line, below GoogleTest's summary.
  EXPECT_THAT(r.out, ::testing::EndsWith("must not look green\n"));
}

TEST_F(GuardProbe, SelectionFromEnvironmentIsGuardedToo) {
  const ProcessResult r = Run({"--gtest_filter=*Emits*"}, {"AFTERSHOCK_SET=x"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr(kGuardMessage));
}

TEST_F(GuardProbe, ScenarioRunsAndTimelinesPrecedeTheFailure) {  // (b)
  const ProcessResult r = Run({"--aftershock_set=x", "--gtest_filter=*Emits*", "--gtest_also_run_disabled_tests"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  const std::string block =
      "##aftershock BEGIN load-timeline.csv set=x scenario=emits-then-fails\n"
      "unix_ms,second,ok\n1000,0,10\n2000,1,12\n"
      "##aftershock END load-timeline.csv rows=2\n";
  const std::size_t markers = r.out.find(block);
  const std::size_t failure = r.out.find("probe failure after emit");
  ASSERT_NE(markers, std::string::npos) << r.out;
  ASSERT_NE(failure, std::string::npos) << r.out;
  EXPECT_LT(markers, failure);
  EXPECT_EQ(r.out.find("##aftershock BEGIN", markers + 1), std::string::npos) << "emitted once only";
  EXPECT_THAT(r.out, Not(HasSubstr(kGuardMessage)));
  EXPECT_EQ(ReadFile(artifacts() / "x" / "emits-then-fails" / "load-timeline.csv"),
            "unix_ms,second,ok\n1000,0,10\n2000,1,12\n");
}

TEST_F(GuardProbe, ScenarioFailingBeforeEmitStillGetsItsTimelinesOut) {
  const ProcessResult r =
      Run({"--aftershock_set=x", "--gtest_filter=*FailsBeforeEmit*", "--gtest_also_run_disabled_tests"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  const std::size_t failure = r.out.find("probe fatal failure before emit");
  const std::size_t markers = r.out.find("##aftershock BEGIN load-timeline.csv set=x scenario=fails-before-emit\n");
  const std::size_t end = r.out.find("##aftershock END load-timeline.csv rows=2\n");
  const std::size_t verdict = r.out.find("[  FAILED  ] GuardProbe.DISABLED_FailsBeforeEmit");
  ASSERT_NE(failure, std::string::npos) << r.out;
  ASSERT_NE(markers, std::string::npos) << r.out;
  ASSERT_NE(end, std::string::npos) << r.out;
  ASSERT_NE(verdict, std::string::npos) << r.out;
  EXPECT_LT(failure, markers);
  EXPECT_LT(markers, end);
  EXPECT_LT(end, verdict);
  EXPECT_EQ(ReadFile(artifacts() / "x" / "fails-before-emit" / "load-timeline.csv"),
            "unix_ms,second,ok\n1000,0,10\n2000,1,12\n");
}

TEST_F(GuardProbe, OnlySkippedScenariosFailWithTheGuardMessage) {  // (c)
  const ProcessResult r = Run({"--aftershock_set=x", "--gtest_filter=*Skipped*", "--gtest_also_run_disabled_tests"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr(std::string(kGuardMessage) +
                               " (filter '*Skipped*', also_run_disabled_tests=1, skipped scenarios=1)"));
}

// The Kubernetes generator Job names each scenario it runs: one that did not execute (a typo, one
// that skipped itself) fails the process even though another scenario ran.
TEST_F(GuardProbe, AScenarioTheFilterNamesThatDidNotExecuteFailsTheRun) {
  const ProcessResult r =
      Run({"--aftershock_set=x",
           "--gtest_filter=DISABLED_GuardProbeSuite.Listed:GuardProbe.DISABLED_SkippedScenario:GuardProbe.DISABLED_Lsited",
           "--gtest_also_run_disabled_tests"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("aftershock: the resilience selection for set 'x' named 2 scenario(s) that did not "
                               "execute: GuardProbe.DISABLED_SkippedScenario (skipped itself); "
                               "GuardProbe.DISABLED_Lsited (did not run: no such scenario in this binary?);"));
  EXPECT_THAT(r.out, Not(HasSubstr("executed no scenario")));
}

TEST_F(GuardProbe, NormalTestWithoutSetPasses) {  // (d)
  const ProcessResult r = Run({"--gtest_filter=*NormalTest*"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("[  PASSED  ] 1 test."));
  EXPECT_THAT(r.out, Not(HasSubstr("executed no scenario")));
}

TEST_F(GuardProbe, WithoutSetNothingExecutedIsNotAnError) {
  const ProcessResult r = Run({"--gtest_filter=*Emits*"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(GuardProbe, UnknownFlagExitsTwoNamingIt) {  // (e)
  const ProcessResult r = Run({"--aftershock_bogus=1"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("aftershock: unknown flag --aftershock_bogus (known: --aftershock_set, "));
  EXPECT_THAT(r.out, Not(HasSubstr("[==========]")));  // nothing ran
}

TEST_F(GuardProbe, MistypedGtestFlagExitsTwoNamingItInsteadOfHelpAndZero) {
  const ProcessResult r = Run({"--gtest_filtr=x"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("aftershock: unknown GoogleTest flag --gtest_filtr (did you mean --gtest_filter?)"));
  EXPECT_THAT(r.out, Not(HasSubstr("[==========]")));  // nothing ran
  EXPECT_THAT(r.out, Not(HasSubstr("This program contains tests written using Google Test")));  // no help
}

TEST_F(GuardProbe, BadEnvironmentValueExitsTwo) {
  const ProcessResult r = Run({"--gtest_filter=*NormalTest*"}, {"AFTERSHOCK_PROGRESS_SECONDS=soon"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("bad value 'soon' for AFTERSHOCK_PROGRESS_SECONDS"));
}

TEST_F(GuardProbe, FixturesSeeTheParsedFlagsCommandLineOverEnvironment) {
  const ProcessResult r = Run({"--gtest_filter=*PrintsFlags*", "--aftershock_manifest=m.yaml"},
                              {"AFTERSHOCK_MANIFEST=env.yaml", "AFTERSHOCK_ARTIFACTS_DIR=env-artifacts",
                               "AFTERSHOCK_PROGRESS_SECONDS=7"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("flags set= manifest=m.yaml artifacts_dir=" + artifacts().string() +
                               " progress_seconds=7\n"));
}

void WriteText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// A set manifest naming `test` as its one scenario "probe".
std::string ProbeManifest(const std::string& set, const std::string& test) {
  return "set: " + set + "\ndefaults:\n  rate_per_second: 10\n  load_seconds: 1\n  settle_seconds: 0\n"
         "  call_deadline_seconds: 1\n  max_in_flight: 100\n  ledger_capacity: 100\n  max_outage_seconds: 0.5\n"
         "  max_unavailable_seconds: 0.5\n  max_recovery_seconds: 1\n  verify_concurrency: 1\n"
         "  timeout_seconds: 30\n  max_latency_p99_seconds: 0.5\nscenarios:\n  - name: probe\n    test: " + test + "\n";
}

TEST_F(GuardProbe, ListCtestRegistersTheManifestsScenariosWithoutAnyInstallLineAndRunsNothing) {
  const std::filesystem::path manifest = tmp_.path() / "probe.yaml";
  WriteText(manifest, ProbeManifest("probe", "GuardProbe.DISABLED_EmitsThenFails"));
  const std::filesystem::path listing = tmp_.path() / "scenarios.cmake";
  const ProcessResult r = Run({"--aftershock_list_ctest=" + listing.string(), "--aftershock_set=probe",
                               "--aftershock_manifest=" + manifest.string()});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string text = ReadFile(listing);
  EXPECT_THAT(text, HasSubstr("add_test([==[probe.probe]==] "));
  EXPECT_THAT(text, HasSubstr("[==[--gtest_filter=GuardProbe.DISABLED_EmitsThenFails]==]"));
  EXPECT_THAT(text, HasSubstr("LABELS [==[resilience;probe]==] TIMEOUT 30 "));
  EXPECT_THAT(text, ::testing::EndsWith("# 1 scenario(s) of set probe\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("[==========]")));
}

TEST_F(GuardProbe, ListCtestFailsLoudlyWhenTheSetRegistersNoneOfTheBinarysScenarios) {
  const std::filesystem::path manifest = tmp_.path() / "other.yaml";
  WriteText(manifest, ProbeManifest("other", "SomeOtherSuite.DISABLED_Scenario"));
  const std::filesystem::path listing = tmp_.path() / "scenarios.cmake";
  const ProcessResult r = Run({"--aftershock_list_ctest=" + listing.string(), "--aftershock_set=other",
                               "--aftershock_manifest=" + manifest.string()});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("this binary has 5 scenario(s) (first: GuardProbe.DISABLED_EmitsThenFails) but set "
                               "'other' (" + manifest.string() + ") registers none of them"));
  EXPECT_FALSE(std::filesystem::exists(listing));
}

TEST_F(GuardProbe, ListCtestWithoutASetIsAUsageError) {
  const ProcessResult r = Run({"--aftershock_list_ctest=" + (tmp_.path() / "x.cmake").string()});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--aftershock_list_ctest needs --aftershock_set=NAME"));
}

TEST_F(GuardProbe, FirstInterruptIsAFlagSecondKills) {
  const ProcessResult r =
      Run({"--aftershock_set=x", "--gtest_filter=*InterruptTwice*", "--gtest_also_run_disabled_tests"});
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.term_signal, SIGINT);
  EXPECT_THAT(r.out, HasSubstr("interrupt before=0\ninterrupt after first=1\n"
                               "##aftershock BEGIN load-timeline.csv set=x scenario=interrupted\n"));
  EXPECT_THAT(r.out, HasSubstr("##aftershock END load-timeline.csv rows=2\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("still alive after second")));
  EXPECT_THAT(r.err, HasSubstr("aftershock: interrupt requested"));
}

TEST_F(GuardProbe, HelpListsAftershockFlags) {
  const ProcessResult r = Run({"--help"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("--aftershock_set=NAME"));
  EXPECT_THAT(r.out, HasSubstr("--gtest_filter"));
}

}  // namespace
}  // namespace aftershock::gtest_integration
