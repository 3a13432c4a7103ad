#include "fuzz/internal/manifest_checks.h"

#include <cmath>
#include <string>

#include "framework/config/config_error.h"
#include "fuzz/internal/fuzz_target.h"

namespace aftershock::fuzz {
namespace {

using config::ConfigError;
using config::ScenarioConfig;

void RequireFinite(double value, std::string_view knob, bool positive, const ScenarioConfig& c) {
  const bool in_range = std::isfinite(value) && (positive ? value > 0 : value >= 0);
  Require(in_range, positive ? "a resolved knob is finite and > 0" : "a resolved knob is finite and >= 0",
          c.source + ": " + std::string(knob) + " = " + std::to_string(value));
}

void ReadEveryParam(const config::ScenarioParams& params) {
  for (const std::string& key : params.Keys()) {
    // Each accessor either answers or throws ConfigError naming the key; nothing else.
    try { (void)params.GetDouble(key); } catch (const ConfigError&) {}
    try { (void)params.GetDuration(key); } catch (const ConfigError&) {}
    try { (void)params.GetInteger(key); } catch (const ConfigError&) {}
    try { (void)params.FindDouble(key); } catch (const ConfigError&) {}
    try { (void)params.FindDuration(key); } catch (const ConfigError&) {}
    (void)params.GetString(key);
    (void)params.FindString(key);
    (void)params.SourceOf(key);
  }
  Require(params.Unread().empty(), "a param read through every accessor is no longer unread");
}

}  // namespace

void CheckLoadedManifest(const config::SetManifest& manifest, const config::Environment& env) {
  Require(!manifest.scenarios.empty(), "a loaded set has at least one scenario");
  for (const ScenarioConfig& c : manifest.scenarios) {
    Require(manifest.Find(c.name) == &c, "Find(name) finds the scenario of that name", c.name);
    Require(manifest.FindByTest(c.test) == &c, "FindByTest(test) finds the scenario of that test", c.test);
    RequireFinite(c.rate_per_second, "rate_per_second", true, c);
    RequireFinite(c.load_seconds, "load_seconds", true, c);
    RequireFinite(c.settle_seconds, "settle_seconds", false, c);
    RequireFinite(c.call_deadline_seconds, "call_deadline_seconds", true, c);
    RequireFinite(c.max_outage_seconds, "max_outage_seconds", false, c);
    Require(c.max_gap_seconds.has_value(), "a loaded scenario has max_gap_seconds", c.source);
    RequireFinite(*c.max_gap_seconds, "max_gap_seconds", false, c);
    RequireFinite(c.max_unavailable_seconds, "max_unavailable_seconds", false, c);
    RequireFinite(c.max_recovery_seconds, "max_recovery_seconds", false, c);
    RequireFinite(c.timeout_seconds, "timeout_seconds", true, c);
    Require(c.max_in_flight >= 1 && c.verify_concurrency >= 1 && c.ledger_capacity >= 1,
            "max_in_flight, verify_concurrency and ledger_capacity are >= 1", c.source);
    Require(!c.profile.empty(), "the profile is never empty", c.source);
    for (const load::StageSpec& stage : c.profile) {
      Require(std::isfinite(stage.rate_from) && std::isfinite(stage.rate_to) && stage.rate_from >= 0 &&
                  stage.rate_to >= 0 && std::isfinite(stage.duration_seconds) && stage.duration_seconds >= 0 &&
                  stage.steps >= 1,
              "a stage's rates and duration are finite and >= 0, its steps >= 1", c.source + " stage " + stage.name);
    }
    Require(std::isfinite(c.PeakRate()) && std::isfinite(c.ProfileSeconds()),
            "the profile's peak rate and length are finite", c.source);
    ReadEveryParam(c.params);
  }
  // Only a ConfigError, for a name RESILIENCE_SCENARIOS gives that the set lacks.
  try {
    for (const std::string& name : config::SelectedScenarios(manifest, env)) {
      Require(manifest.Find(name) != nullptr, "a selected scenario is in the set", name);
    }
  } catch (const ConfigError&) {
  }
}

}  // namespace aftershock::fuzz
