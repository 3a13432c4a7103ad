#include "framework/config/internal/system_env.h"

#include <string_view>

namespace aftershock::config::internal {
namespace {

bool IsEnvironmentName(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::map<std::string, std::string> ReadSystemEnv(const std::string& path, const MapEntry& entry,
                                                 const std::string& what) {
  if (!entry.value.IsMap()) {
    Fail(path, LineOf(entry.value, entry.line),
         "key 'env' of " + what + ": expected a map of NAME: value, found " + DescribeNode(entry.value));
  }
  const CheckedMap map(path, entry.value, "env of " + what, entry.line, std::nullopt);
  std::map<std::string, std::string> env;
  for (const MapEntry& variable : map.entries()) {
    if (!IsEnvironmentName(variable.key)) {
      Fail(path, variable.line, "env of " + what + ": '" + variable.key +
                                    "' is not an environment variable name (expected [A-Za-z_][A-Za-z0-9_]*)");
    }
    for (std::string_view reserved : {"RESILIENCE_", "AFTERSHOCK_"}) {
      if (variable.key.starts_with(reserved)) {
        Fail(path, variable.line, "env of " + what + ": '" + variable.key + "' is aftershock's own (" +
                                      std::string(reserved) +
                                      "* configures the run; set it in the environment of the run, "
                                      "not in the system's env:)");
      }
    }
    if (variable.value.IsNull()) {
      Fail(path, variable.line, "env of " + what + ": key '" + variable.key +
                                    "' has no value (write " + variable.key + ": \"\" for an empty one)");
    }
    env[variable.key] = ScalarText(path, variable, "a scalar (text, number or boolean)");
  }
  return env;
}

std::map<std::string, std::string> MergeSystemEnv(std::map<std::string, std::string> base,
                                                  const std::map<std::string, std::string>& overrides) {
  for (const auto& [name, value] : overrides) base[name] = value;
  return base;
}

}  // namespace aftershock::config::internal
