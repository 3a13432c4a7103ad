// The --aftershock_list_ctest mode of a suite binary: instead of running tests, the binary
// describes its scenarios for CTest registration into the file named by the flag.
//
// aftershock_gtest_main calls RunListCtestWriter with the parsed flags and exits with what it
// returns. It always writes the manifest-aware registration (manifest_ctest_writer.h): a suite binary
// needs no installation line of its own, so none can be forgotten.
//
//   if (flags.list_ctest_mode()) return RunListCtestWriter(flags);   // in main, after InitGoogleTest
#ifndef AFTERSHOCK_FRAMEWORK_GTEST_LIST_CTEST_H_
#define AFTERSHOCK_FRAMEWORK_GTEST_LIST_CTEST_H_

#include "framework/gtest/flags.h"

namespace aftershock::gtest_integration {

// Writes the registration of ListScenarioTests(); returns the process exit code. Call after
// InitGoogleTest.
int RunListCtestWriter(const Flags& flags);

}  // namespace aftershock::gtest_integration

#endif  // AFTERSHOCK_FRAMEWORK_GTEST_LIST_CTEST_H_
