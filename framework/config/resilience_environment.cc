#include "framework/config/resilience_environment.h"

#include <algorithm>

#include "framework/config/config_error.h"
#include "framework/config/internal/knobs.h"
#include "framework/config/internal/nearest_name.h"
#include "framework/config/internal/scenario_name.h"
#include "framework/config/scalar_text.h"

namespace aftershock::config {
namespace {

using internal::IsScenarioName;

[[noreturn]] void FailVariable(std::string_view name, std::string_view value, std::string problem) {
  // Problems are phrased to follow a value ("is not a number"); after "NAME='v':" the verb is noise.
  if (problem.starts_with("is ")) problem.erase(0, 3);
  throw ConfigError(std::string(name) + "='" + std::string(value) + "': " + problem);
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

std::vector<std::string> KnownEnvironmentVariables() {
  std::vector<std::string> names;
  for (const internal::KnobSpec& spec : internal::kKnobs) names.emplace_back(spec.env);
  names.emplace_back(internal::kScenariosVariable);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> ScenarioNamesFromEnvironment(const Environment& env) {
  std::optional<std::string> raw = env.Get(internal::kScenariosVariable);
  std::vector<std::string> names;
  if (!raw || Trim(*raw).empty()) return names;
  std::string_view rest = *raw;
  for (std::size_t guard = 0; guard <= raw->size(); ++guard) {
    std::size_t comma = rest.find(',');
    std::string_view item = Trim(rest.substr(0, comma));
    if (item.empty()) {
      FailVariable(internal::kScenariosVariable, *raw,
                   "has an empty item (expected a comma list of scenario names, e.g. baseline,stall-burst)");
    }
    if (!IsScenarioName(item)) {
      FailVariable(internal::kScenariosVariable, *raw,
                   "'" + std::string(item) + "' is not a scenario name (expected [a-z0-9-]+)");
    }
    names.emplace_back(item);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return names;
}

void ValidateEnvironment(const Environment& env) {
  const std::vector<std::string> known = KnownEnvironmentVariables();
  for (const std::string& name : env.NamesWithPrefix(kEnvironmentPrefix)) {
    const std::string value = env.Get(name).value_or("");
    for (const internal::MovedVariable& moved : internal::kMovedVariables) {
      if (moved.name == name) {
        FailVariable(name, value, "not read by aftershock: the run's own settings are AFTERSHOCK_*; use " +
                                      std::string(moved.use_instead));
      }
    }
    if (!std::binary_search(known.begin(), known.end(), name)) {
      std::string problem = "not a known variable (known: " + internal::JoinNames(known) + ")";
      std::string nearest = internal::NearestName(name, known);
      if (!nearest.empty()) problem += "; did you mean " + nearest + "?";
      FailVariable(name, value, problem);
    }
    bool is_knob = false;
    for (const internal::KnobSpec& spec : internal::kKnobs) {
      if (spec.env != name) continue;
      is_knob = true;
      internal::ParsedKnob parsed = internal::ParseKnob(spec, value);
      if (!parsed.value) FailVariable(name, value, parsed.problem);
    }
    if (is_knob) continue;
    if (name == internal::kScenariosVariable) ScenarioNamesFromEnvironment(env);
  }
}

}  // namespace aftershock::config
