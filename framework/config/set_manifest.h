// Scenario set manifests (manifests/sets/<name>.yaml): which scenarios a set runs and with what knobs.
// Loading validates everything strictly; any problem is a ConfigError naming file:line and the key, or
// the RESILIENCE_* variable. Nothing falls back to a built-in default.
//
//   SetManifest set = LoadSetManifest("manifests/sets/pr.yaml", Environment::FromProcess());
//   for (const std::string& name : SelectedScenarios(set, env)) { const ScenarioConfig* c = set.Find(name); }
//   const ScenarioConfig* mine = set.FindByTest("PrSuite.DISABLED_PrimaryKill");
//
// Format (manifests/sets/example.yaml is a complete example):
//   set: pr                      required, equal to the file name stem
//   description: ...             optional
//   defaults: {<knob>: value}    optional, any knobs
//   env: {NAME: value}           optional, the system's environment (internal/system_env.h)
//   stop_conditions: [...]       optional, every scenario's safety watch (internal/stop_conditions.h)
//   scenarios:                   required, non-empty list of
//     - name: primary-kill       required, [a-z0-9-]+, unique
//       test: PrSuite.DISABLED_PrimaryKill   required, gtest full name, unique
//       description: ...         optional
//       <knob>: value            optional override
//       profile: [stages]        optional, see below
//       params: {key: scalar}    optional, read through ScenarioParams
//       env: {NAME: value}       optional, added to / replacing the set's
//       stop_conditions: [...]   optional, added to / replacing the set's by name
// Knobs (see ScenarioConfig): rate_per_second (number > 0), load_seconds (duration > 0), settle_seconds
// (duration >= 0), call_deadline_seconds (duration > 0), max_in_flight, ledger_capacity,
// verify_concurrency (integers >= 1), max_outage_seconds, max_gap_seconds, max_unavailable_seconds,
// max_recovery_seconds (durations >= 0), timeout_seconds (duration > 0, must exceed the profile plus
// settle_seconds).
// Every knob must be set for every scenario, by defaults, the scenario or the environment, except that
// a profiled scenario takes load_seconds from its stages and, when rate_per_second is set nowhere, its
// rate from the profile's peak, and max_gap_seconds, set nowhere, is the scenario's resolved
// max_outage_seconds. A profiled scenario that sets load_seconds itself must agree with the
// sum of its stages.
// Durations: a plain number is seconds; "500ms", "90s", "2m", "1.5m", "1h" carry a unit.
// Profile stages:
//   {name: warm-up, kind: constant, rate: 60, duration: 30s}
//   {name: ramp, kind: ramp, from: 60, to: 400, duration: 20s}
//   {name: steps, kind: steps, from: 100, to: 400, steps: 4, duration: 40s}
//   {name: spike, kind: spike, from: 100, to: 900, at: 10s, spike: 5s, duration: 40s}
//   {name: soak, kind: soak, rate: 50, duration: 30m}
// Stage names are unique within a profile; rates are >= 0 and at least one stage must offer load.
//
// Precedence: defaults < scenario override < environment (RESILIENCE_<KNOB IN UPPER CASE>).
// Environment and profiles: a profile is scaled, not replaced, so its shape survives.
//   RESILIENCE_RATE_PER_SECOND=r multiplies every stage rate (constant rate, ramp/steps from and to) by
//     r / the scenario's configured rate_per_second (from defaults or the scenario; the profile's peak
//     when neither sets it). rate_per_second becomes r.
//   RESILIENCE_LOAD_SECONDS=t multiplies every stage duration by t / the sum of the stage durations, so
//     the profile lasts t seconds. load_seconds becomes t.
// Without a profile the single stage "load" simply uses the final rate_per_second and load_seconds.
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_SET_MANIFEST_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_SET_MANIFEST_H_

#include <string>
#include <string_view>
#include <vector>

#include "framework/config/config_error.h"
#include "framework/config/environment.h"
#include "framework/config/scenario_config.h"

namespace aftershock::config {

struct SetManifest {
  std::string name;
  std::string description;
  std::string path;  // as given to the loader; used in messages
  std::vector<ScenarioConfig> scenarios;  // in manifest order

  // nullptr when absent.
  const ScenarioConfig* Find(std::string_view scenario_name) const;
  const ScenarioConfig* FindByTest(std::string_view gtest_full_name) const;
};

// Reads and parses `path`; ConfigError when it cannot be read or is not a valid manifest, or when `env`
// holds an unknown or malformed RESILIENCE_* variable (including RESILIENCE_SCENARIOS naming a scenario
// the set does not have).
SetManifest LoadSetManifest(const std::string& path, const Environment& env);

// The same for text already in memory; `path_for_messages` is used in messages and for the check that
// `set:` matches the file name stem.
SetManifest ParseSetManifest(std::string_view yaml_text, const std::string& path_for_messages,
                             const Environment& env);

// The scenario names to run: those of RESILIENCE_SCENARIOS in manifest order, or all when it is unset
// or empty. ConfigError when it names a scenario the set does not have (the message lists the set's).
std::vector<std::string> SelectedScenarios(const SetManifest& manifest, const Environment& env);

}  // namespace aftershock::config

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_SET_MANIFEST_H_
