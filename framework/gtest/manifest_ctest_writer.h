// The CTest registration of scenarios, written by a suite binary itself (--aftershock_list_ctest).
//
// A suite binary knows its scenarios (the DISABLED_ gtest cases) and, through the set manifests,
// which set selects which of them with what timeout. ctest/aftershock_suite.cmake runs the binary
// after every build to write this file, and CTest includes it: one test per (set, scenario), run
// with --gtest_also_run_disabled_tests, labelled "resilience;<set>", with its timeout and gtest XML
// output; the include file of ctest/aftershock_suite.cmake adds the one cluster resource lock
// (ctest/cluster_lock.cmake). (gtest_discover_tests(... PROPERTIES LABELS "a;b") would silently drop
// the list values, hence this include file.)
//
// aftershock_gtest_main always uses this writer (list_ctest.h): no suite has to install it. A binary
// that has scenarios but registers none of them for the requested set is an error (exit 1, naming the
// set and the manifest), never an empty registration that looks like a passing run.
//
// Beside the registration the binary writes its claims (`<file>.claims`, ScenarioClaims): every
// scenario of the manifest, where it is declared, its `test:`, and whether this binary has that
// test. ctest/check_set_claims.cmake reads the claims of every binary registered for one manifest
// and fails the build unless each scenario is claimed by exactly one of them: a `test:` typo or a
// renamed test would otherwise drop the scenario from its set without a word.
//
//   CtestScript s = ScenarioCtestScript(manifest, path, {"ExampleSuite.DISABLED_Baseline"}, where);
//   // s.text: add_test(...) lines; s.registered: 1
#ifndef AFTERSHOCK_FRAMEWORK_GTEST_MANIFEST_CTEST_WRITER_H_
#define AFTERSHOCK_FRAMEWORK_GTEST_MANIFEST_CTEST_WRITER_H_

#include <string>
#include <vector>

#include "framework/config/set_manifest.h"
#include "framework/gtest/flags.h"

namespace aftershock::gtest_integration {

struct CtestRegistration {
  std::string binary;     // absolute path of the suite binary
  std::string xml_dir;    // where each scenario's gtest XML goes
  std::string artifacts_dir;
};

struct CtestScript {
  std::string text;    // the CMake script
  int registered = 0;  // scenarios it registers
};

// The CMake script registering every scenario of `manifest` that `tests` contains.
CtestScript ScenarioCtestScript(const config::SetManifest& manifest, const std::string& manifest_path,
                                const std::vector<std::string>& tests, const CtestRegistration& where);

// The claims file of one binary for one manifest: a header, then one line per manifest scenario,
//   scenario<TAB>name<TAB>file:line<TAB>test<TAB>claimed|unclaimed
// (tabs and newlines in a value would break the format and are replaced by spaces; a manifest's
// names and tests hold neither).
std::string ScenarioClaims(const config::SetManifest& manifest, const std::string& manifest_path,
                           const std::vector<std::string>& tests, const std::string& binary);

// main's --aftershock_list_ctest mode: loads the manifest of flags.set (flags.manifest, or
// DefaultManifestPath) and writes the script to flags.list_ctest and the claims to
// flags.list_ctest + ".claims". Returns the exit code: 0 written,
// 1 an error (bad manifest, cannot write, or `tests` is not empty and none is registered), 2 no set.
int WriteManifestCtestRegistration(const Flags& flags, const std::vector<std::string>& tests);

// "<manifests dir>/<set>.yaml", the manifest a suite binary reads without --aftershock_manifest.
std::string DefaultManifestPath(const std::string& set);
// Where DefaultManifestPath looks: aftershock's own manifests/sets unless the suite names its own.
// aftershock_add_suite(... MANIFESTS <dir>) generates this call into the suite binary (at static
// initialisation, before main), so a suite run from an IDE reads the user's manifests.
void SetDefaultManifestsDir(std::string dir);

}  // namespace aftershock::gtest_integration

#endif  // AFTERSHOCK_FRAMEWORK_GTEST_MANIFEST_CTEST_WRITER_H_
