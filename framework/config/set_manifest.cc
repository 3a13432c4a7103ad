#include "framework/config/set_manifest.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include "framework/config/internal/knobs.h"
#include "framework/config/internal/nearest_name.h"
#include "framework/config/internal/profile.h"
#include "framework/config/internal/scenario_name.h"
#include "framework/config/internal/slo.h"
#include "framework/config/internal/stop_conditions.h"
#include "framework/config/internal/system_env.h"
#include "framework/config/internal/values.h"
#include "framework/config/internal/yaml_documents.h"
#include "framework/config/internal/yaml_map.h"
#include "framework/config/resilience_environment.h"

namespace aftershock::config {
namespace {

using internal::CheckedMap;
using internal::Fail;
using internal::IsScenarioName;
using internal::kKnobCount;
using internal::kKnobs;
using internal::MapEntry;

struct KnobSetting {
  double value = 0;
  int line = 0;  // 0 for the environment
};
using KnobSettings = std::array<std::optional<KnobSetting>, kKnobCount>;

std::string FormatNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::vector<std::string> KnobNames() {
  std::vector<std::string> names;
  for (const internal::KnobSpec& spec : kKnobs) names.emplace_back(spec.name);
  return names;
}

std::vector<std::string> ScenarioKeys() {
  std::vector<std::string> keys = {"name", "test", "description", "profile", "params", "env", "stop_conditions", "slo",
                                   "availability_not_judged", "latency_not_judged", "faults_required"};
  for (const std::string& knob : KnobNames()) keys.push_back(knob);
  return keys;
}

bool IsIdentifierPart(std::string_view part) {
  if (part.empty() || (part[0] >= '0' && part[0] <= '9')) return false;
  for (char c : part) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '/';  // '/' for parameterized suites and tests: "Prefix/Suite.Name/0"
    if (!ok) return false;
  }
  return true;
}

bool IsGtestFullName(std::string_view name) {
  std::size_t dot = name.find('.');
  if (dot == std::string_view::npos || name.find('.', dot + 1) != std::string_view::npos) return false;
  return IsIdentifierPart(name.substr(0, dot)) && IsIdentifierPart(name.substr(dot + 1));
}

KnobSettings ReadKnobs(const std::string& path, const CheckedMap& map) {
  KnobSettings settings;
  for (const MapEntry& entry : map.entries()) {
    for (std::size_t i = 0; i < kKnobCount; ++i) {
      if (kKnobs[i].name != entry.key) continue;
      settings[i] = KnobSetting{internal::ReadValue(path, entry, kKnobs[i].kind, kKnobs[i].bound),
                                entry.line};
    }
  }
  return settings;
}

// Only after ValidateEnvironment: every value here parses.
KnobSettings KnobsFromEnvironment(const Environment& env) {
  KnobSettings settings;
  for (std::size_t i = 0; i < kKnobCount; ++i) {
    std::optional<std::string> text = env.Get(kKnobs[i].env);
    if (!text) continue;
    internal::ParsedKnob parsed = internal::ParseKnob(kKnobs[i], *text);
    if (!parsed.value) throw ConfigError(std::string(kKnobs[i].env) + "='" + *text + "': " + parsed.problem);
    settings[i] = KnobSetting{*parsed.value, 0};
  }
  return settings;
}

ScenarioParams ReadParams(const std::string& path, const MapEntry& entry, const std::string& scenario,
                          int scenario_line) {
  const CheckedMap map(path, entry.value, "params of scenario '" + scenario + "'", entry.line,
                       std::nullopt);
  std::map<std::string, ScenarioParams::Value> values;
  for (const MapEntry& param : map.entries()) {
    values[param.key] = ScenarioParams::Value{internal::ScalarText(path, param, "a scalar"),
                                              internal::LineOf(param.value, param.line)};
  }
  return ScenarioParams(path, scenario, scenario_line, std::move(values));
}

void ScaleProfile(std::vector<load::StageSpec>& profile, double rate_factor, double time_factor) {
  for (load::StageSpec& stage : profile) {
    stage.rate_from *= rate_factor;
    stage.rate_to *= rate_factor;
    stage.duration_seconds *= time_factor;
    stage.spike_at_seconds *= time_factor;
    stage.spike_seconds *= time_factor;
  }
}

class ManifestParser {
 public:
  ManifestParser(const std::string& path, const Environment& env)
      : path_(path), env_knobs_(KnobsFromEnvironment(env)) {}

  SetManifest Parse(std::string_view text) {
    const YAML::Node root = LoadSingleDocument(text);
    const CheckedMap top(path_, root, "the manifest", 1,
                         std::vector<std::string>{"set", "description", "defaults", "env", "stop_conditions", "slo", "scenarios"});
    SetManifest manifest;
    manifest.path = path_;
    const MapEntry& set_entry = top.Require("set");
    manifest.name = internal::ReadName(path_, set_entry);
    const std::string stem = std::filesystem::path(path_).stem().string();
    if (manifest.name != stem) {
      Fail(path_, set_entry.line, "key 'set': '" + manifest.name +
                                      "' does not match the file name (expected '" + stem + "')");
    }
    if (const MapEntry* description = top.Find("description")) {
      manifest.description = internal::ScalarText(path_, *description, "a text");
    }
    if (const MapEntry* defaults = top.Find("defaults")) {
      defaults_ = ReadKnobs(path_, CheckedMap(path_, defaults->value, "defaults", defaults->line,
                                              KnobNames()));
    }
    if (const MapEntry* env = top.Find("env")) set_env_ = internal::ReadSystemEnv(path_, *env, "the manifest");
    if (const MapEntry* stops = top.Find("stop_conditions")) {
      set_stop_conditions_ = internal::ParseStopConditions(path_, *stops, "the manifest");
    }
    if (const MapEntry* slo = top.Find("slo")) set_slo_ = internal::ParseSlo(path_, *slo, "the manifest");
    const MapEntry& scenarios = top.Require("scenarios");
    if (!scenarios.value.IsSequence()) {
      const int line = scenarios.value.IsNull() ? scenarios.line
                                                : internal::LineOf(scenarios.value, scenarios.line);
      Fail(path_, line, "key 'scenarios': expected a list of scenarios, found " +
                            internal::DescribeNode(scenarios.value));
    }
    if (scenarios.value.size() == 0) {
      Fail(path_, scenarios.line, "key 'scenarios': the list is empty (a set runs at least one scenario)");
    }
    for (std::size_t i = 0; i < scenarios.value.size(); ++i) {
      ScenarioConfig config = ParseScenario(scenarios.value[i], i, scenarios.line);
      config.set = manifest.name;
      for (const ScenarioConfig& earlier : manifest.scenarios) {
        if (earlier.name == config.name) {
          Fail(path_, line_of_name_, "key 'name': scenario '" + config.name +
                                         "' appears twice (first at " + earlier.source + ")");
        }
        if (earlier.test == config.test) {
          Fail(path_, line_of_test_, "key 'test': test '" + config.test + "' is already used by scenario '" +
                                         earlier.name + "' (" + earlier.source + ")");
        }
      }
      manifest.scenarios.push_back(std::move(config));
    }
    return manifest;
  }

 private:
  YAML::Node LoadSingleDocument(std::string_view text) {
    std::vector<YAML::Node> documents;
    try {
      documents = internal::LoadAllDocuments(text);
    } catch (const YAML::Exception& e) {
      Fail(path_, e.mark.is_null() ? 1 : e.mark.line + 1, "YAML syntax error: " + e.msg);
    }
    if (documents.empty() || documents[0].IsNull()) {
      Fail(path_, 1, "the manifest is empty (expected a map with keys 'set' and 'scenarios')");
    }
    if (documents.size() > 1) {
      Fail(path_, internal::LineOf(documents[1], 1),
           "the manifest holds more than one YAML document (expected exactly one)");
    }
    return documents[0];
  }

  ScenarioConfig ParseScenario(const YAML::Node& node, std::size_t index, int list_line) {
    const int line = internal::LineOf(node, list_line);
    // Peek at the name first so every later message can say which scenario it is about.
    std::string what = "scenario " + std::to_string(index + 1);
    if (node.IsMap()) {
      // Iterate rather than node["name"]: a const lookup of an absent key yields an invalid node.
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (it->first.IsScalar() && it->first.Scalar() == "name" && it->second.IsScalar()) {
          what = "scenario '" + it->second.Scalar() + "'";
          break;
        }
      }
    }
    const CheckedMap map(path_, node, what, line, ScenarioKeys());

    ScenarioConfig config;
    config.source = path_ + ":" + std::to_string(line);
    const MapEntry& name_entry = map.Require("name");
    config.name = internal::ReadName(path_, name_entry);
    line_of_name_ = name_entry.line;
    if (!IsScenarioName(config.name)) {
      Fail(path_, name_entry.line, "key 'name': '" + config.name +
                                       "' is not a scenario name (expected [a-z0-9-]+, e.g. primary-kill)");
    }
    const MapEntry& test_entry = map.Require("test");
    config.test = internal::ReadName(path_, test_entry);
    line_of_test_ = test_entry.line;
    if (!IsGtestFullName(config.test)) {
      Fail(path_, test_entry.line, "key 'test': '" + config.test +
                                       "' is not a gtest full name (expected Suite.Name, e.g. "
                                       "PrSuite.DISABLED_PrimaryKill)");
    }
    if (const MapEntry* description = map.Find("description")) {
      config.description = internal::ScalarText(path_, *description, "a text");
    }
    if (const MapEntry* entry = map.Find("availability_not_judged")) {
      config.availability_not_judged = internal::ScalarText(path_, *entry, "a text");
      if (config.availability_not_judged.find_first_not_of(" \t") == std::string::npos) {
        Fail(path_, entry->line, "key 'availability_not_judged': give the reason the scenario does not judge "
                                 "availability (e.g. \"the overload stage is an overload by design\")");
      }
    }
    if (const MapEntry* entry = map.Find("latency_not_judged")) {
      config.latency_not_judged = internal::ScalarText(path_, *entry, "a text");
      if (config.latency_not_judged.find_first_not_of(" \t") == std::string::npos) {
        Fail(path_, entry->line, "key 'latency_not_judged': give the reason the scenario does not judge "
                                 "latency (e.g. \"a failover's successes after retries take up to the deadline\")");
      }
      line_of_latency_not_judged_ = entry->line;
    }
    if (const MapEntry* entry = map.Find("faults_required")) {
      const std::string text = internal::ScalarText(path_, *entry, "true or false");
      if (text != "true" && text != "false") {
        Fail(path_, entry->line, "key 'faults_required': '" + text + "' is not true or false");
      }
      config.faults_required = text == "true";
    }
    const KnobSettings overrides = ReadKnobs(path_, map);
    std::optional<std::vector<load::StageSpec>> profile;
    if (const MapEntry* entry = map.Find("profile")) {
      profile = internal::ParseProfile(path_, *entry, config.name);
    }
    if (const MapEntry* entry = map.Find("params")) {
      config.params = ReadParams(path_, *entry, config.name, line);
    } else {
      config.params = ScenarioParams(path_, config.name, line, {});
    }
    config.env = set_env_;
    if (const MapEntry* entry = map.Find("env")) {
      config.env = internal::MergeSystemEnv(std::move(config.env), internal::ReadSystemEnv(path_, *entry, what));
    }
    config.stop_conditions = set_stop_conditions_;
    if (const MapEntry* entry = map.Find("stop_conditions")) {
      config.stop_conditions = internal::MergeStopConditions(std::move(config.stop_conditions),
                                                             internal::ParseStopConditions(path_, *entry, what));
    }
    config.slo = set_slo_;
    if (const MapEntry* entry = map.Find("slo")) {
      SloSpec own = internal::ParseSlo(path_, *entry, what);
      config.slo = config.slo ? internal::MergeSlo(std::move(*config.slo), own) : std::move(own);
    }
    Resolve(config, overrides, std::move(profile), line);
    return config;
  }

  // defaults < scenario override < environment; then the profile and the cross-knob checks.
  void Resolve(ScenarioConfig& config, const KnobSettings& overrides,
               std::optional<std::vector<load::StageSpec>> profile, int line) {
    using namespace internal;
    KnobSettings configured;  // defaults < scenario
    for (std::size_t i = 0; i < kKnobCount; ++i) configured[i] = overrides[i] ? overrides[i] : defaults_[i];

    if (profile) {
      config.profile = std::move(*profile);
      const double profile_seconds = config.ProfileSeconds();
      if (overrides[kLoadSeconds] &&
          std::abs(overrides[kLoadSeconds]->value - profile_seconds) > 1e-9 * std::max(1.0, profile_seconds)) {
        Fail(path_, overrides[kLoadSeconds]->line,
             "key 'load_seconds': " + FormatNumber(overrides[kLoadSeconds]->value) +
                 " disagrees with the profile of scenario '" + config.name + "', whose stages add up to " +
                 FormatNumber(profile_seconds) + " s (leave load_seconds out, or make them agree)");
      }
      // A profiled scenario's load lasts as long as its stages, whatever the defaults say.
      configured[kLoadSeconds] = KnobSetting{profile_seconds, line};
      if (!configured[kRatePerSecond]) configured[kRatePerSecond] = KnobSetting{config.PeakRate(), line};
      const double rate_factor =
          env_knobs_[kRatePerSecond] ? env_knobs_[kRatePerSecond]->value / configured[kRatePerSecond]->value : 1;
      const double time_factor =
          env_knobs_[kLoadSeconds] ? env_knobs_[kLoadSeconds]->value / profile_seconds : 1;
      ScaleProfile(config.profile, rate_factor, time_factor);
    }

    for (std::size_t i = 0; i < kKnobCount; ++i) {
      std::optional<KnobSetting> setting = env_knobs_[i] ? env_knobs_[i] : configured[i];
      if (!setting && i == kMaxGapSeconds) {
        // Optional: the gap budget defaults to the outage budget (already resolved: a lower index).
        static_assert(kMaxOutageSeconds < kMaxGapSeconds);
        SetKnob(config, i, config.max_outage_seconds);
        continue;
      }
      if (i == kMaxLatencyP99Seconds) {
        // The set's default budget yields to a scenario that says it judges no latency; its own
        // budget (or the environment's) beside latency_not_judged is a contradiction.
        const bool own = env_knobs_[i] || overrides[i];
        ResolveLatencyBudget(config, own || config.latency_not_judged.empty() ? setting : std::nullopt, line);
        continue;
      }
      if (!setting && kKnobs[i].has_default) setting = KnobSetting{kKnobs[i].default_value, line};
      if (!setting) {
        Fail(path_, line, "scenario '" + config.name + "' has no value for key '" +
                              std::string(kKnobs[i].name) + "' (set it under 'defaults:', in the "
                              "scenario, or with " + std::string(kKnobs[i].env) + ")");
      }
      SetKnob(config, i, setting->value);
    }
    if (!profile) {
      config.profile = {load::StageSpec{.name = "load",
                                        .kind = load::StageKind::kConstant,
                                        .rate_from = config.rate_per_second,
                                        .rate_to = 0,
                                        .duration_seconds = config.load_seconds,
                                        .steps = 1}};
    }
    if (config.slo) {
      std::vector<std::string> stage_names;
      for (const load::StageSpec& stage : config.profile) stage_names.push_back(stage.name);
      internal::CheckSloStages(*config.slo, stage_names, "scenario '" + config.name + "'");
    }
    // A budget as long as the load cannot fail: it stands in for "not judged here", which is said
    // with availability_not_judged instead.
    if (config.availability_not_judged.empty()) {
      const std::pair<const char*, double> budgets[] = {{"max_outage_seconds", config.max_outage_seconds},
                                                        {"max_gap_seconds", config.max_gap_seconds.value_or(0)},
                                                        {"max_unavailable_seconds", config.max_unavailable_seconds}};
      for (const auto& [key, budget] : budgets) {
        if (budget < config.ProfileSeconds()) continue;
        Fail(path_, line, "scenario '" + config.name + "': key '" + key + "' (" + FormatNumber(budget) +
                              " s) is as long as the load (" + FormatNumber(config.ProfileSeconds()) +
                              " s): a budget that cannot fail; if the scenario does not judge availability "
                              "(an overload by design), say so with availability_not_judged: <reason>");
      }
    }
    if (config.max_latency_p99_seconds && *config.max_latency_p99_seconds >= config.call_deadline_seconds) {
      Fail(path_, line, "scenario '" + config.name + "': key 'max_latency_p99_seconds' (" +
                            FormatNumber(*config.max_latency_p99_seconds) + " s) is not below the call deadline (" +
                            FormatNumber(config.call_deadline_seconds) +
                            " s): no successful call can take longer, so the budget cannot fail; if the scenario "
                            "does not judge latency, say so with latency_not_judged: <reason>");
    }
    const double needed = config.ProfileSeconds() + config.settle_seconds;
    if (config.timeout_seconds <= needed) {
      Fail(path_, line, "scenario '" + config.name + "': key 'timeout_seconds' (" +
                            FormatNumber(config.timeout_seconds) + " s) must exceed the load (" +
                            FormatNumber(config.ProfileSeconds()) + " s) plus settle_seconds (" +
                            FormatNumber(config.settle_seconds) + " s), or the scenario can never finish");
    }
  }

  // Every scenario declares its latency budget, or says why it judges none: no default that silently
  // judges nothing, and not both (`setting` is null when the set's default yielded to the reason).
  void ResolveLatencyBudget(ScenarioConfig& config, const std::optional<KnobSetting>& setting, int line) {
    using namespace internal;
    if (setting && !config.latency_not_judged.empty()) {
      Fail(path_, line_of_latency_not_judged_,
           "scenario '" + config.name + "' says latency_not_judged and also has a latency budget (max_latency_p99_seconds: " +
               FormatNumber(setting->value) + (setting->line > 0 ? " from line " + std::to_string(setting->line)
                                                                  : std::string(" from ") + std::string(kKnobs[kMaxLatencyP99Seconds].env)) +
               "): keep one of them");
    }
    if (!setting && config.latency_not_judged.empty()) {
      Fail(path_, line, "scenario '" + config.name + "' has no latency budget: set max_latency_p99_seconds (the p99 of "
                            "its successful calls' latency, under 'defaults:' or in the scenario, or with " +
                            std::string(kKnobs[kMaxLatencyP99Seconds].env) +
                            "), or say why it judges none with latency_not_judged: <reason>");
    }
    if (setting) SetKnob(config, kMaxLatencyP99Seconds, setting->value);
  }

  const std::string& path_;
  KnobSettings env_knobs_;
  KnobSettings defaults_;
  std::map<std::string, std::string> set_env_;  // the top-level env:, the base of every scenario's
  std::vector<StopConditionSpec> set_stop_conditions_;
  std::optional<SloSpec> set_slo_;  // the top-level slo:, every scenario's default  // the top-level stop_conditions:, likewise
  int line_of_name_ = 0;
  int line_of_test_ = 0;
  int line_of_latency_not_judged_ = 0;
};

}  // namespace

const ScenarioConfig* SetManifest::Find(std::string_view scenario_name) const {
  for (const ScenarioConfig& scenario : scenarios) {
    if (scenario.name == scenario_name) return &scenario;
  }
  return nullptr;
}

const ScenarioConfig* SetManifest::FindByTest(std::string_view gtest_full_name) const {
  for (const ScenarioConfig& scenario : scenarios) {
    if (scenario.test == gtest_full_name) return &scenario;
  }
  return nullptr;
}

SetManifest ParseSetManifest(std::string_view yaml_text, const std::string& path_for_messages,
                             const Environment& env) {
  ValidateEnvironment(env);
  SetManifest manifest = ManifestParser(path_for_messages, env).Parse(yaml_text);
  SelectedScenarios(manifest, env);  // RESILIENCE_SCENARIOS must name scenarios of this set
  return manifest;
}

SetManifest LoadSetManifest(const std::string& path, const Environment& env) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw ConfigError(path + ": cannot read the set manifest (" +
                      std::error_code(errno, std::generic_category()).message() + ")");
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw ConfigError(path + ": reading the set manifest failed");
  return ParseSetManifest(text.str(), path, env);
}

std::vector<std::string> SelectedScenarios(const SetManifest& manifest, const Environment& env) {
  const std::vector<std::string> wanted = ScenarioNamesFromEnvironment(env);
  std::vector<std::string> all;
  for (const ScenarioConfig& scenario : manifest.scenarios) all.push_back(scenario.name);
  if (wanted.empty()) return all;
  for (const std::string& name : wanted) {
    if (manifest.Find(name) != nullptr) continue;
    std::string message = std::string(internal::kScenariosVariable) + "='" +
                          env.Get(internal::kScenariosVariable).value_or("") + "': '" + name +
                          "' is not a scenario of set '" + manifest.name + "' (" + manifest.path +
                          "; scenarios: " + internal::JoinNames(all) + ")";
    std::string nearest = internal::NearestName(name, all);
    if (!nearest.empty()) message += "; did you mean '" + nearest + "'?";
    throw ConfigError(message);
  }
  std::vector<std::string> selected;
  for (const std::string& name : all) {
    if (std::find(wanted.begin(), wanted.end(), name) != wanted.end()) selected.push_back(name);
  }
  return selected;
}

}  // namespace aftershock::config
