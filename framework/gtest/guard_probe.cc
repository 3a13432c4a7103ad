// guard_probe: a tiny test-only suite binary (linked with aftershock_gtest_main) that
// end_to_end_test.cc runs as a subprocess to check main, the empty-run guard, the timeline
// listener, the flags and the interrupt handling from the outside.
#include <csignal>
#include <cstdio>
#include <iostream>
#include <ostream>

#include "framework/gtest/flags.h"
#include "framework/gtest/interrupt.h"
#include "framework/gtest/scenario_output.h"
#include "gtest/gtest.h"

namespace ag = aftershock::gtest_integration;

namespace {

void AddProbeTimeline(const char* scenario) {
  ag::ScenarioOutput& out = ag::CurrentScenarioOutput();
  out.Begin(ag::CurrentFlags().set, scenario);
  out.AddTimeline("load-timeline.csv", [](std::ostream& os) {
    os << "unix_ms,second,ok\n1000,0,10\n2000,1,12\n";
    return std::size_t{2};
  });
}

}  // namespace

TEST(GuardProbe, DISABLED_EmitsThenFails) {
  AddProbeTimeline("emits-then-fails");
  ag::CurrentScenarioOutput().Emit();
  EXPECT_EQ(1, 2) << "probe failure after emit";
}

TEST(GuardProbe, DISABLED_FailsBeforeEmit) {
  AddProbeTimeline("fails-before-emit");
  FAIL() << "probe fatal failure before emit";
}

TEST(GuardProbe, DISABLED_SkippedScenario) { GTEST_SKIP() << "probe skip"; }

TEST(GuardProbe, DISABLED_InterruptTwice) {
  std::cout << "interrupt before=" << ag::InterruptRequested() << std::endl;
  std::raise(SIGINT);
  std::cout << "interrupt after first=" << ag::InterruptRequested() << std::endl;
  AddProbeTimeline("interrupted");
  ag::CurrentScenarioOutput().Emit();
  std::raise(SIGINT);  // the second one kills the process
  std::cout << "still alive after second" << std::endl;
}

TEST(GuardProbe, NormalTest) { EXPECT_EQ(2, 1 + 1); }

TEST(GuardProbe, PrintsFlags) {
  const ag::Flags& flags = ag::CurrentFlags();
  std::cout << "flags set=" << flags.set << " manifest=" << flags.manifest
            << " artifacts_dir=" << flags.artifacts_dir << " progress_seconds=" << flags.progress_seconds
            << std::endl;
}

// A whole disabled suite is a scenario suite too.
TEST(DISABLED_GuardProbeSuite, Listed) {}
