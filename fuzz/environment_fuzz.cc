// Fuzz target: the environment layer (framework/config/environment.h, resilience_environment.h).
// The input is NAME=VALUE lines (split at the first '='; a line without one is a name set to "").
// From them an Environment is built, then read through every accessor: Get of every known variable
// and of every given name, NamesWithPrefix, ValidateEnvironment, ScenarioNamesFromEnvironment, and a
// fixed manifest loaded under that environment, so each RESILIENCE_* knob goes through the same
// parsing, overriding and profile scaling a run does. Only ConfigError may come back.
#include <map>
#include <string>

#include "framework/config/config_error.h"
#include "framework/config/environment.h"
#include "framework/config/resilience_environment.h"
#include "framework/config/set_manifest.h"
#include "fuzz/internal/fuzz_target.h"
#include "fuzz/internal/manifest_checks.h"

namespace config = aftershock::config;
using aftershock::fuzz::Require;

namespace {

// One plain scenario and one of each profile stage kind: what the environment can override or scale.
constexpr std::string_view kManifest = R"(set: fuzz
defaults:
  rate_per_second: 200
  load_seconds: 12
  settle_seconds: 1
  call_deadline_seconds: 2
  max_in_flight: 2000
  ledger_capacity: 1000
  max_outage_seconds: 5
  max_unavailable_seconds: 10
  max_recovery_seconds: 10
  verify_concurrency: 16
  timeout_seconds: 3600
  max_latency_p99_seconds: 0.5
scenarios:
  - name: baseline
    test: FuzzSuite.DISABLED_Baseline
    params: {stall_at_seconds: 4}
  - name: staged
    test: FuzzSuite.DISABLED_Staged
    profile:
      - {name: warm-up, kind: constant, rate: 60, duration: 30s}
      - {name: ramp, kind: ramp, from: 60, to: 400, duration: 20s}
      - {name: steps, kind: steps, from: 100, to: 400, steps: 4, duration: 40s}
      - {name: spike, kind: spike, from: 100, to: 900, at: 10s, spike: 5s, duration: 40s}
      - {name: soak, kind: soak, rate: 50, duration: 1m}
)";

std::map<std::string, std::string> ParseEntries(std::string_view text) {
  std::map<std::string, std::string> entries;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const std::size_t eq = line.find('=');
    entries[std::string(line.substr(0, eq))] =
        eq == std::string_view::npos ? std::string() : std::string(line.substr(eq + 1));
  }
  return entries;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::map<std::string, std::string> entries = ParseEntries(aftershock::fuzz::AsText(data, size));
  const config::Environment env = config::Environment::FromMap(entries);
  for (const auto& [name, value] : entries) {
    Require(env.Get(name) == value, "Get(name) returns the value given", name);
  }
  for (const std::string& name : config::KnownEnvironmentVariables()) {
    const std::optional<std::string> value = env.Get(name);
    const auto given = entries.find(name);
    Require(value.has_value() == (given != entries.end()), "Get(known name) is set exactly when given", name);
  }
  const std::vector<std::string> resilience = env.NamesWithPrefix(config::kEnvironmentPrefix);
  for (const std::string& name : resilience) {
    Require(name.starts_with(config::kEnvironmentPrefix) && entries.contains(name),
            "NamesWithPrefix returns given names with the prefix", name);
  }
  bool valid = true;
  try {
    config::ValidateEnvironment(env);
  } catch (const config::ConfigError&) {
    valid = false;
  }
  try {
    (void)config::ScenarioNamesFromEnvironment(env);
  } catch (const config::ConfigError&) {
    Require(!valid, "ScenarioNamesFromEnvironment accepts what ValidateEnvironment accepted");
  }
  config::SetManifest manifest;
  try {
    manifest = config::ParseSetManifest(kManifest, "fuzz.yaml", env);
  } catch (const config::ConfigError&) {
    return 0;  // a malformed variable, or knobs the manifest cannot satisfy (e.g. a short timeout)
  }
  Require(valid, "a manifest loads only under an environment ValidateEnvironment accepts");
  aftershock::fuzz::CheckLoadedManifest(manifest, env);
  return 0;
}
