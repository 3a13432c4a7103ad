#include "framework/gtest/flags.h"

#include <charconv>
#include <cstdlib>
#include <string_view>
#include <system_error>

namespace aftershock::gtest_integration {
namespace {

enum class Kind { kName, kPath, kSeconds };

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

// A set name ends up in stdout markers and in a directory name, so it must be one plain word.
bool IsPlainName(std::string_view v) {
  if (v.empty() || v == "." || v == "..") return false;
  for (char c : v) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
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

}  // namespace

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
