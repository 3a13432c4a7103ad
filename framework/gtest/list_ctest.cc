#include "framework/gtest/list_ctest.h"

#include <cstdio>
#include <exception>
#include <fstream>
#include <utility>

#include "framework/gtest/scenario_tests.h"

namespace aftershock::gtest_integration {
namespace {

// Process-wide because main lives in aftershock_gtest_main and cannot be handed the writer: code
// that wants another writer registers it before main runs. Function-local, so registration from
// a static initialiser in another translation unit is safe.
ListCtestWriter& InstalledWriter() {
  static ListCtestWriter writer;
  return writer;
}

}  // namespace

void SetListCtestWriter(ListCtestWriter writer) { InstalledWriter() = std::move(writer); }

int WriteScenarioComments(const Flags& flags, const std::vector<std::string>& scenarios) {
  std::ofstream file(flags.list_ctest, std::ios::trunc);
  for (const std::string& name : scenarios) file << "# " << name << '\n';
  file.close();
  if (!file) {
    std::fprintf(stderr, "aftershock: cannot write %s\n", flags.list_ctest.c_str());
    return 1;
  }
  return 0;
}

int RunListCtestWriter(const Flags& flags) {
  const ListCtestWriter& writer = InstalledWriter();
  const std::vector<std::string> scenarios = ListScenarioTests();
  try {
    return writer ? writer(flags, scenarios) : WriteScenarioComments(flags, scenarios);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aftershock: --aftershock_list_ctest failed: %s\n", e.what());
    return 1;
  }
}

}  // namespace aftershock::gtest_integration
