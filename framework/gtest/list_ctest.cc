#include "framework/gtest/list_ctest.h"

#include <cstdio>
#include <exception>

#include "framework/gtest/manifest_ctest_writer.h"
#include "framework/gtest/scenario_tests.h"

namespace aftershock::gtest_integration {

int RunListCtestWriter(const Flags& flags) {
  try {
    return WriteManifestCtestRegistration(flags, ListScenarioTests());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aftershock: --aftershock_list_ctest failed: %s\n", e.what());
    return 1;
  }
}

}  // namespace aftershock::gtest_integration
