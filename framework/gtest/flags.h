// Flags: aftershock's own command-line flags for a suite binary, parsed before InitGoogleTest.
//
// A suite binary accepts, besides every --gtest_* flag:
//   --aftershock_set=NAME              this run is the resilience selection of scenario set NAME
//                                      (turns on the empty-run guard)          env AFTERSHOCK_SET
//   --aftershock_manifest=PATH         the set's manifest file                   env AFTERSHOCK_MANIFEST
//   --aftershock_artifacts_dir=DIR     where timelines etc. go ("artifacts")     env AFTERSHOCK_ARTIFACTS_DIR
//   --aftershock_progress_seconds=N    progress line period, 0 = off (5)         env AFTERSHOCK_PROGRESS_SECONDS
//   --aftershock_halt_file=PATH        operator halt: while PATH exists, scenarios stop and are refused
//                                      (docs/safety.md; none by default)       env AFTERSHOCK_HALT_FILE
//   --aftershock_cluster_driver=local|kubernetes  the cluster the cluster suites act on (local)
//                                                                              env AFTERSHOCK_CLUSTER_DRIVER
//   --aftershock_service_target=TARGET  kubernetes: the gRPC target of the load ("" = the driver's
//                                      headless Service)                       env AFTERSHOCK_SERVICE_TARGET
//   --aftershock_list_ctest=PATH       write a CTest include file instead of running tests
// The command line wins over the environment; an empty environment variable counts as unset.
// Recognised flags are removed from `args`; everything else is left for GoogleTest.
//
//   std::vector<std::string> args(argv, argv + argc);
//   Flags flags = ParseFlags(args, [](const char* n) -> std::optional<std::string> {
//     const char* v = std::getenv(n); return v ? std::optional<std::string>(v) : std::nullopt; });
//   // throws FlagError("unknown flag --aftershock_sett (known: --aftershock_set, ...)")
//
// GoogleTest 1.12 prints its help and exits 0, having run nothing, for a --gtest_* flag it does not
// know; CheckGtestFlags turns that into an error naming the flag:
//
//   CheckGtestFlags({"suite", "--gtest_filtr=x"});
//   // throws FlagError("unknown GoogleTest flag --gtest_filtr (did you mean --gtest_filter?) ...")
//
// Fixtures read the flags of the running binary with CurrentFlags().
#ifndef AFTERSHOCK_FRAMEWORK_GTEST_FLAGS_H_
#define AFTERSHOCK_FRAMEWORK_GTEST_FLAGS_H_

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace aftershock::gtest_integration {

struct Flags {
  std::string set;  // empty: not a resilience selection (e.g. a developer run from the IDE)
  std::string manifest;
  std::string artifacts_dir = "artifacts";
  int progress_seconds = 5;  // 0 turns the progress line off
  std::string halt_file;     // empty: no operator halt (framework/safety/operator_halt.h)
  std::string cluster_driver = "local";  // local | kubernetes (fixtures/cluster_scenario.h)
  std::string service_target;            // kubernetes: "" = the driver's headless Service
  std::string list_ctest;    // non-empty: describe the scenarios into this file and exit

  bool resilience_selection() const { return !set.empty(); }
  bool list_ctest_mode() const { return !list_ctest.empty(); }
};

// A malformed, unknown or valueless --aftershock_* flag (or a bad AFTERSHOCK_* variable).
class FlagError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using GetEnvFn = std::function<std::optional<std::string>(const char*)>;

// Parses and removes every "--aftershock_*" element of `args` (argv[0] included is fine: it is
// never a flag). Values come as "--aftershock_x=VALUE" only, as with --gtest_* flags.
Flags ParseFlags(std::vector<std::string>& args, const GetEnvFn& getenv);

// Checks what GoogleTest 1.12 would take for one of its flags (an argument starting with "--", "-"
// or "/" then "gtest_" or "gtest-", except "gtest_internal_*") but not parse, which would make it print
// its help and exit 0 having run nothing. Accepted, as googletest 1.12's parser does: exactly
// "--gtest_NAME=VALUE" for its string and integer flags, "--gtest_NAME" or "--gtest_NAME=VALUE" for its
// bool flags, and the help requests --gtest_help / -gtest_help (main prints the help). Anything else
// throws FlagError naming the argument: an unknown name (with the nearest known one), a value given
// as a separate argument or not at all, a non-integer value of --gtest_repeat, --gtest_random_seed or
// --gtest_stack_trace_depth, one dash, "/" or "gtest-". args[0] (the program) is not checked.
void CheckGtestFlags(const std::vector<std::string>& args);

// GetEnvFn reading the real process environment.
std::optional<std::string> ProcessGetEnv(const char* name);

// The flags' help text (printed by main after GoogleTest's own --help).
std::string FlagsHelp();

// Largest accepted --aftershock_progress_seconds (one day).
inline constexpr int kMaxProgressSeconds = 86400;

// The flags of the running binary: what aftershock_gtest_main parsed, or defaults when none is
// installed (a binary linked with GTest::gtest_main, a unit test).
const Flags& CurrentFlags();

// Installs `flags` as CurrentFlags() for its lifetime (main does this; tests may too).
// The flags are copied; the previous installation is restored on destruction.
class ScopedCurrentFlags {
 public:
  explicit ScopedCurrentFlags(Flags flags);
  ~ScopedCurrentFlags();
  ScopedCurrentFlags(const ScopedCurrentFlags&) = delete;
  ScopedCurrentFlags& operator=(const ScopedCurrentFlags&) = delete;

 private:
  Flags flags_;
  const Flags* previous_;
};

}  // namespace aftershock::gtest_integration

#endif  // AFTERSHOCK_FRAMEWORK_GTEST_FLAGS_H_
