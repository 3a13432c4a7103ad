// The --aftershock_list_ctest mode of a suite binary: instead of running tests, the binary
// describes its scenarios for CTest registration into the file named by the flag.
//
// aftershock_gtest_main calls the installed writer with the parsed flags and ListScenarioTests()
// and exits with what it returns. The default writer writes one CMake comment per scenario:
//   # Ha.DISABLED_PrimaryKill
// A richer writer (one that reads the set manifests) is installed before main runs, e.g. by a
// static registration object in a library the suite binary links:
//   const bool registered = (SetListCtestWriter(&WriteManifestRegistration), true);
#ifndef AFTERSHOCK_FRAMEWORK_GTEST_LIST_CTEST_H_
#define AFTERSHOCK_FRAMEWORK_GTEST_LIST_CTEST_H_

#include <functional>
#include <string>
#include <vector>

#include "framework/gtest/flags.h"

namespace aftershock::gtest_integration {

// Returns the process exit code; `scenarios` are full names "Suite.DISABLED_X".
using ListCtestWriter = std::function<int(const Flags& flags, const std::vector<std::string>& scenarios)>;

// Replaces the writer (an empty function restores the default). Call before main or from main.
void SetListCtestWriter(ListCtestWriter writer);

// The default writer: "# <Suite>.<Name>\n" per scenario into flags.list_ctest; 1 if it cannot write.
int WriteScenarioComments(const Flags& flags, const std::vector<std::string>& scenarios);

// Runs the installed writer (main's --aftershock_list_ctest mode). Call after InitGoogleTest.
int RunListCtestWriter(const Flags& flags);

}  // namespace aftershock::gtest_integration

#endif  // AFTERSHOCK_FRAMEWORK_GTEST_LIST_CTEST_H_
