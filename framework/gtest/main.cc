// main() of every aftershock suite binary (library aftershock_gtest_main, linked instead of
// GTest::gtest_main): parses the aftershock flags, initialises GoogleTest, installs the scenario
// reporters (stdout, artifacts, JUnit properties, the CI step summary), the timeline listener, the
// empty-run guard (for a resilience selection) and the interrupt handlers, and runs the tests; or,
// with --aftershock_list_ctest, writes the manifest-aware CTest registration instead.
// Exit codes: 0 all passed, 1 a failure (or an empty resilience selection), 2 bad aftershock flags
// or a --gtest_* flag GoogleTest would not parse (it would print its help and exit 0).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "framework/gtest/empty_run_guard.h"
#include "framework/gtest/flags.h"
#include "framework/gtest/interrupt.h"
#include "framework/gtest/list_ctest.h"
#include "framework/gtest/reporters.h"
#include "framework/gtest/scenario_output.h"
#include "gtest/gtest.h"

namespace {

bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h" || arg == "-?" || arg == "/?" || arg == "--gtest_help" ||
        arg == "-gtest_help") {
      return true;
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  namespace ag = aftershock::gtest_integration;

  std::vector<std::string> args(argv, argv + argc);
  ag::Flags flags;
  try {
    flags = ag::ParseFlags(args, &ag::ProcessGetEnv);
    ag::CheckGtestFlags(args);  // googletest 1.12 would print its help and exit 0 on a typo
  } catch (const ag::FlagError& e) {
    std::fprintf(stderr, "aftershock: %s\n", e.what());
    return 2;
  }
  const ag::ScopedCurrentFlags current_flags(flags);

  // GoogleTest sees the remaining arguments; `args` owns the strings for the whole run.
  std::vector<char*> gtest_argv;
  gtest_argv.reserve(args.size() + 1);
  for (std::string& arg : args) gtest_argv.push_back(arg.data());
  gtest_argv.push_back(nullptr);
  int gtest_argc = static_cast<int>(args.size());
  const bool help = WantsHelp(args);
  testing::InitGoogleTest(&gtest_argc, gtest_argv.data());
  if (help) {
    std::fputs(ag::FlagsHelp().c_str(), stdout);
    return 0;
  }

  if (flags.list_ctest_mode()) return ag::RunListCtestWriter(flags);

  ag::ScenarioOutput output(flags.artifacts_dir);
  const ag::ScopedCurrentScenarioOutput current_output(output);
  // The CI step summary, where CI offers one (GitHub Actions).
  const char* step_summary = std::getenv("GITHUB_STEP_SUMMARY");
  const ag::ScopedScenarioReporters reporters(
      ag::DefaultScenarioReporters(step_summary != nullptr ? step_summary : ""));
  testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
  listeners.Append(new ag::TimelineListener);  // GoogleTest owns the listeners.
  if (flags.resilience_selection()) listeners.Append(new ag::EmptyRunGuard(flags.set));
  ag::InstallInterruptHandlers();

  return RUN_ALL_TESTS();
}
