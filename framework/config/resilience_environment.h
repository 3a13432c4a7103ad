// The RESILIENCE_* environment variables: which ones exist, and the check that every one that is set
// is known and well-formed. An unknown RESILIENCE_* variable is an error (most likely a typo that would
// otherwise silently leave a knob at its manifest value). LoadSetManifest runs this check itself; call
// it directly where no manifest is loaded (tools, gtest main).
//
//   ValidateEnvironment(Environment::FromProcess());   // throws ConfigError:
//   // RESILIENCE_LOAD_SECONDS='ten': not a duration (expected a number of seconds or a value like ...)
//
// Knob variables (one per manifest knob, RESILIENCE_ + the key in upper case) are parsed like manifest
// values. RESILIENCE_SCENARIOS is a comma list of scenario names. RESILIENCE_ARTIFACTS_DIR and
// RESILIENCE_PROGRESS_SECONDS are refused naming AFTERSHOCK_ARTIFACTS_DIR / AFTERSHOCK_PROGRESS_SECONDS:
// how the tool runs is AFTERSHOCK_* (docs/environment.md lists every variable).
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_RESILIENCE_ENVIRONMENT_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_RESILIENCE_ENVIRONMENT_H_

#include <string>
#include <vector>

#include "framework/config/environment.h"

namespace aftershock::config {

// Every known RESILIENCE_* name, sorted.
std::vector<std::string> KnownEnvironmentVariables();

// Throws ConfigError "NAME='value': problem" for the first unknown or malformed variable (by name order).
void ValidateEnvironment(const Environment& env);

// The names of RESILIENCE_SCENARIOS, trimmed, in the order given; empty when unset or "".
// Throws ConfigError for an empty item ("a,,b") or a name that cannot be a scenario name.
std::vector<std::string> ScenarioNamesFromEnvironment(const Environment& env);

}  // namespace aftershock::config

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_RESILIENCE_ENVIRONMENT_H_
