// The `env:` maps of a set manifest: environment variables for the system under test's bring-up
// (the set's own processes, a user's fixture hook), validated like every knob. The set's `env:` is
// the base, a scenario's `env:` overrides single names; RESILIENCE_* / AFTERSHOCK_* names are refused
// (they configure aftershock itself and belong in the run's environment, not the system's).
//
//   env:                      # top level: every scenario of the set
//     APP_CACHE: "off"
//   scenarios:
//     - name: cold-start
//       env: {APP_CACHE: "on"} # this scenario only
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_SYSTEM_ENV_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_SYSTEM_ENV_H_

#include <map>
#include <string>

#include "framework/config/internal/yaml_map.h"

namespace aftershock::config::internal {

// Reads one `env:` entry (a map of NAME: scalar). Throws ConfigError "path:line: ..." for a value that
// is not a map, a name that is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*), a reserved
// prefix, or a value that is a map, a list or empty. `what`: "the manifest" or "scenario 'x'".
std::map<std::string, std::string> ReadSystemEnv(const std::string& path, const MapEntry& entry,
                                                 const std::string& what);

// `base` with every name of `overrides` replaced or added.
std::map<std::string, std::string> MergeSystemEnv(std::map<std::string, std::string> base,
                                                  const std::map<std::string, std::string>& overrides);

}  // namespace aftershock::config::internal

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_SYSTEM_ENV_H_
