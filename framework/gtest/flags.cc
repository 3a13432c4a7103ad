#include "framework/gtest/flags.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string_view>
#include <system_error>

#include "framework/gtest/internal/plain_name.h"

namespace aftershock::gtest_integration {
namespace {

using internal::IsPlainName;

enum class Kind { kName, kPath, kSeconds, kClusterDriver };

struct FlagSpec {
  std::string_view name;      // without the leading "--"
  const char* env;            // nullptr: command line only
  Kind kind;
  std::string_view metavar;   // for "needs a value" messages
  std::string Flags::*text;   // for kName / kPath
  int Flags::*number;         // for kSeconds
};

const FlagSpec kSpecs[] = {
    {"aftershock_set", "AFTERSHOCK_SET", Kind::kName, "NAME", &Flags::set, nullptr},
    {"aftershock_manifest", "AFTERSHOCK_MANIFEST", Kind::kPath, "PATH", &Flags::manifest, nullptr},
    {"aftershock_artifacts_dir", "AFTERSHOCK_ARTIFACTS_DIR", Kind::kPath, "DIR", &Flags::artifacts_dir,
     nullptr},
    {"aftershock_progress_seconds", "AFTERSHOCK_PROGRESS_SECONDS", Kind::kSeconds, "N", nullptr,
     &Flags::progress_seconds},
    {"aftershock_halt_file", "AFTERSHOCK_HALT_FILE", Kind::kPath, "PATH", &Flags::halt_file, nullptr},
    {"aftershock_cluster_driver", "AFTERSHOCK_CLUSTER_DRIVER", Kind::kClusterDriver, "local|kubernetes",
     &Flags::cluster_driver, nullptr},
    {"aftershock_service_target", "AFTERSHOCK_SERVICE_TARGET", Kind::kPath, "TARGET", &Flags::service_target, nullptr},
    {"aftershock_list_ctest", nullptr, Kind::kPath, "PATH", &Flags::list_ctest, nullptr},
};

std::string KnownFlags() {
  std::string known;
  for (const FlagSpec& spec : kSpecs) {
    if (!known.empty()) known += ", ";
    known += "--";
    known += spec.name;
  }
  return known;
}

// `source` is "--aftershock_x" or "AFTERSHOCK_X", for the message.
void Apply(const FlagSpec& spec, std::string_view value, std::string_view source, Flags& flags) {
  switch (spec.kind) {
    case Kind::kName:
      if (!IsPlainName(value)) {
        throw FlagError("bad value '" + std::string(value) + "' for " + std::string(source) +
                        ": expected a name of letters, digits, '.', '_' or '-'");
      }
      flags.*spec.text = std::string(value);
      return;
    case Kind::kPath:
      flags.*spec.text = std::string(value);
      return;
    case Kind::kClusterDriver:
      if (value != "local" && value != "kubernetes") {
        throw FlagError("bad value '" + std::string(value) + "' for " + std::string(source) +
                        ": expected local or kubernetes");
      }
      flags.*spec.text = std::string(value);
      return;
    case Kind::kSeconds: {
      int n = -1;
      const char* end = value.data() + value.size();
      const auto [ptr, ec] = std::from_chars(value.data(), end, n);
      if (ec != std::errc() || ptr != end || n < 0 || n > kMaxProgressSeconds) {
        throw FlagError("bad value '" + std::string(value) + "' for " + std::string(source) +
                        ": expected a whole number of seconds from 0 to " + std::to_string(kMaxProgressSeconds));
      }
      flags.*spec.number = n;
      return;
    }
  }
}

const FlagSpec* FindSpec(std::string_view name) {
  for (const FlagSpec& spec : kSpecs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

// Matches anything that looks meant for aftershock, so a typo ("-aftershock_set=pr",
// "--aftershock-set=pr") is an error instead of a silently unguarded run.
bool LooksLikeAftershockFlag(std::string_view arg) {
  return arg.starts_with("--aftershock") || arg.starts_with("-aftershock");
}

// googletest 1.12's flags as its ParseGoogleTestFlagsOnlyImpl parses them (gtest.cc,
// ParseGoogleTestFlag and the flagfile flag); show_internal_stack_frames and
// install_failure_signal_handler are defined there but not parsed, so they are not here.
enum class GtestKind { kBool, kString, kInt32 };
struct GtestFlag {
  std::string_view name;  // after "--gtest_"
  GtestKind kind;
};
constexpr GtestFlag kGtestFlags[] = {
    {"also_run_disabled_tests", GtestKind::kBool},
    {"break_on_failure", GtestKind::kBool},
    {"catch_exceptions", GtestKind::kBool},
    {"color", GtestKind::kString},
    {"death_test_style", GtestKind::kString},
    {"death_test_use_fork", GtestKind::kBool},
    {"fail_fast", GtestKind::kBool},
    {"filter", GtestKind::kString},
    {"flagfile", GtestKind::kString},
    {"list_tests", GtestKind::kBool},
    {"output", GtestKind::kString},
    {"brief", GtestKind::kBool},
    {"print_time", GtestKind::kBool},
    {"print_utf8", GtestKind::kBool},
    {"random_seed", GtestKind::kInt32},
    {"repeat", GtestKind::kInt32},
    {"recreate_environments_when_repeating", GtestKind::kBool},
    {"shuffle", GtestKind::kBool},
    {"stack_trace_depth", GtestKind::kInt32},
    {"stream_result_to", GtestKind::kString},
    {"throw_on_failure", GtestKind::kBool},
};

const GtestFlag* FindGtestFlag(std::string_view name) {
  for (const GtestFlag& flag : kGtestFlags) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// " (did you mean --gtest_filter?)" when a known flag is close, else "".
std::string NearestGtestFlag(std::string_view name) {
  const GtestFlag* best = nullptr;
  std::size_t best_distance = 0;
  for (const GtestFlag& flag : kGtestFlags) {
    // A cut-short name ("also_run_disabled") is as near as a one-letter typo.
    const bool prefix = name.size() >= 3 && flag.name.starts_with(name);
    const std::size_t d = prefix ? 1 : EditDistance(name, flag.name);
    if (best == nullptr || d < best_distance) {
      best = &flag;
      best_distance = d;
    }
  }
  if (best == nullptr || best_distance > std::max<std::size_t>(2, name.size() / 3)) return "";
  return " (did you mean --gtest_" + std::string(best->name) + "?)";
}

// googletest's ParseInt32: a whole decimal number in int32 range.
bool IsInt32(std::string_view v) {
  std::int32_t n = 0;
  const char* end = v.data() + v.size();
  const auto [ptr, ec] = std::from_chars(v.data(), end, n);
  return !v.empty() && ec == std::errc() && ptr == end;
}

constexpr char kGtestNote[] = " (GoogleTest would print its help and exit 0, running nothing)";

}  // namespace

// googletest reads every non-empty line of a flag file as one --gtest_* flag (not another flagfile)
// and prints its help for any other line. An unreadable file is left to googletest (it aborts).
static void CheckGtestFlagFile(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  for (int number = 1; in && std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::string where = " in --gtest_flagfile=" + path + " line " + std::to_string(number);
    if (!line.starts_with("--gtest_") || line.starts_with("--gtest_flagfile")) {
      throw FlagError("'" + line + "'" + where + " is not a --gtest_* flag" + kGtestNote);
    }
    try {
      CheckGtestFlags({"", line});
    } catch (const FlagError& e) {
      throw FlagError(e.what() + where);
    }
  }
}

void CheckGtestFlags(const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view arg(args[i]);
    if (arg == "--gtest_help" || arg == "-gtest_help") continue;  // main prints the help
    std::string_view rest = arg;
    std::string_view dashes;
    for (std::string_view prefix : {"--", "-", "/"}) {
      if (rest.starts_with(prefix)) {
        dashes = prefix;
        rest.remove_prefix(prefix.size());
        break;
      }
    }
    if (dashes.empty() || rest.starts_with("gtest_internal_")) continue;
    if (!rest.starts_with("gtest_") && !rest.starts_with("gtest-")) continue;
    const std::size_t eq = rest.find('=');
    const std::string_view name = rest.substr(6, eq == std::string_view::npos ? std::string_view::npos : eq - 6);
    const std::string flag_text(arg.substr(0, dashes.size() + 6 + name.size()));
    const GtestFlag* flag = FindGtestFlag(name);
    if (flag == nullptr) {
      throw FlagError("unknown GoogleTest flag " + flag_text + NearestGtestFlag(name) + kGtestNote);
    }
    if (dashes != "--" || rest[5] != '_') {
      throw FlagError("GoogleTest flag " + std::string(arg) + " must be spelled --gtest_" + std::string(name) +
                      (eq == std::string_view::npos ? "" : std::string(rest.substr(eq))) + kGtestNote);
    }
    if (eq == std::string_view::npos) {
      if (flag->kind == GtestKind::kBool) continue;
      throw FlagError("GoogleTest flag " + flag_text + " needs its value after '=': " + flag_text +
                      "=VALUE (a separate argument is not read)" + kGtestNote);
    }
    const std::string_view value = rest.substr(eq + 1);
    if (flag->kind == GtestKind::kInt32 && !IsInt32(value)) {
      throw FlagError("bad value '" + std::string(value) + "' for " + flag_text + ": expected a whole number" +
                      kGtestNote);
    }
    if (flag->name == "flagfile") CheckGtestFlagFile(std::string(value));
  }
}

Flags ParseFlags(std::vector<std::string>& args, const GetEnvFn& getenv) {
  Flags flags;
  // Environment first, so the command line overrides it.
  for (const FlagSpec& spec : kSpecs) {
    if (spec.env == nullptr || !getenv) continue;
    const std::optional<std::string> value = getenv(spec.env);
    if (!value.has_value() || value->empty()) continue;
    Apply(spec, *value, spec.env, flags);
  }

  std::vector<std::string> rest;
  rest.reserve(args.size());
  for (const std::string& arg : args) {
    const std::string_view view(arg);
    if (!LooksLikeAftershockFlag(view)) {
      rest.push_back(arg);  // a copy: on error `args` stays as it was
      continue;
    }
    const std::size_t eq = view.find('=');
    const std::string_view flag = view.substr(0, eq);  // "--aftershock_x"
    if (!flag.starts_with("--")) {
      throw FlagError("flag " + std::string(view) + ": aftershock flags take two dashes (known: " + KnownFlags() +
                      ")");
    }
    const FlagSpec* spec = FindSpec(flag.substr(2));
    if (spec == nullptr) {
      throw FlagError("unknown flag " + std::string(flag) + " (known: " + KnownFlags() + ")");
    }
    if (eq == std::string_view::npos || eq + 1 == view.size()) {
      throw FlagError("flag " + std::string(flag) + " needs a value: " + std::string(flag) + "=" +
                      std::string(spec->metavar));
    }
    Apply(*spec, view.substr(eq + 1), flag, flags);
  }
  args = std::move(rest);
  return flags;
}

std::optional<std::string> ProcessGetEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::string FlagsHelp() {
  return "\naftershock flags (command line wins over the environment):\n"
         "  --aftershock_set=NAME            run the resilience selection of scenario set NAME; fails when no\n"
         "                                   scenario executes (env AFTERSHOCK_SET)\n"
         "  --aftershock_manifest=PATH       the set's manifest file (env AFTERSHOCK_MANIFEST)\n"
         "  --aftershock_artifacts_dir=DIR   where timelines and other artifacts go, default 'artifacts'\n"
         "                                   (env AFTERSHOCK_ARTIFACTS_DIR)\n"
         "  --aftershock_progress_seconds=N  progress line period, 0 = off, default 5\n"
         "                                   (env AFTERSHOCK_PROGRESS_SECONDS)\n"
         "  --aftershock_halt_file=PATH      operator halt: while PATH exists, scenarios stop and are refused\n"
         "                                   (env AFTERSHOCK_HALT_FILE)\n"
         "  --aftershock_cluster_driver=local|kubernetes\n"
         "                                   which cluster the cluster suites act on, default local\n"
         "                                   (env AFTERSHOCK_CLUSTER_DRIVER; docs/kubernetes.md)\n"
         "  --aftershock_service_target=TARGET  kubernetes: the gRPC target the load goes to, default the\n"
         "                                   headless Service (env AFTERSHOCK_SERVICE_TARGET)\n"
         "  --aftershock_list_ctest=PATH     write the CTest description of the scenarios to PATH, run nothing\n";
}

namespace {
// The flags installed by main. Process-wide because fixtures reach them from inside gtest cases,
// which main cannot pass arguments to; written only by ScopedCurrentFlags.
const Flags* installed_flags = nullptr;
}  // namespace

const Flags& CurrentFlags() {
  static const Flags kDefaults;
  return installed_flags != nullptr ? *installed_flags : kDefaults;
}

ScopedCurrentFlags::ScopedCurrentFlags(Flags flags) : flags_(std::move(flags)), previous_(installed_flags) {
  installed_flags = &flags_;
}

ScopedCurrentFlags::~ScopedCurrentFlags() { installed_flags = previous_; }

}  // namespace aftershock::gtest_integration
