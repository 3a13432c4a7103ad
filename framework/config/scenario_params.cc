#include "framework/config/scenario_params.h"

#include <utility>

#include "framework/config/config_error.h"
#include "framework/config/scalar_text.h"

namespace aftershock::config {

ScenarioParams::ScenarioParams() : read_(std::make_shared<ReadRecord>()) {}

ScenarioParams::ScenarioParams(std::string path, std::string scenario, int line,
                               std::map<std::string, Value> values)
    : path_(std::move(path)),
      scenario_(std::move(scenario)),
      line_(line),
      values_(values.begin(), values.end()),
      read_(std::make_shared<ReadRecord>()) {}

const ScenarioParams::Value* ScenarioParams::Lookup(std::string_view key) const {
  {
    std::lock_guard<std::mutex> lock(read_->mutex);
    read_->keys.emplace(key);
  }
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

void ScenarioParams::FailMissing(std::string_view key) const {
  std::string known;
  for (const auto& [name, value] : values_) known += (known.empty() ? "" : ", ") + name;
  throw ConfigError(path_ + ":" + std::to_string(line_) + ": scenario '" + scenario_ +
                    "' has no params key '" + std::string(key) + "' (params: " +
                    (known.empty() ? "none" : known) + ")");
}

void ScenarioParams::FailMalformed(std::string_view key, const Value& value,
                                   std::string_view what) const {
  throw ConfigError(path_ + ":" + std::to_string(value.line) + ": key '" + std::string(key) +
                    "': '" + value.text + "' is not " + std::string(what) + " (params of scenario '" +
                    scenario_ + "')");
}

std::optional<double> ScenarioParams::FindDouble(std::string_view key) const {
  const Value* value = Lookup(key);
  if (value == nullptr) return std::nullopt;
  std::optional<double> number = ParseNumber(value->text);
  if (!number) FailMalformed(key, *value, "a number");
  return number;
}

std::optional<double> ScenarioParams::FindDuration(std::string_view key) const {
  const Value* value = Lookup(key);
  if (value == nullptr) return std::nullopt;
  std::optional<double> seconds = ParseDuration(value->text);
  if (!seconds) FailMalformed(key, *value, "a duration (" + std::string(kDurationExpectation) + ")");
  if (*seconds < 0) FailMalformed(key, *value, "a duration >= 0");
  return seconds;
}

std::optional<std::string> ScenarioParams::FindString(std::string_view key) const {
  const Value* value = Lookup(key);
  if (value == nullptr) return std::nullopt;
  return value->text;
}

double ScenarioParams::GetDouble(std::string_view key) const {
  std::optional<double> value = FindDouble(key);
  if (!value) FailMissing(key);
  return *value;
}

double ScenarioParams::GetDuration(std::string_view key) const {
  std::optional<double> value = FindDuration(key);
  if (!value) FailMissing(key);
  return *value;
}

long long ScenarioParams::GetInteger(std::string_view key) const {
  const Value* value = Lookup(key);
  if (value == nullptr) FailMissing(key);
  std::optional<long long> number = ParseInteger(value->text);
  if (!number) FailMalformed(key, *value, "an integer");
  return *number;
}

std::string ScenarioParams::GetString(std::string_view key) const {
  std::optional<std::string> value = FindString(key);
  if (!value) FailMissing(key);
  return *value;
}

bool ScenarioParams::Has(std::string_view key) const { return values_.find(key) != values_.end(); }

std::vector<std::string> ScenarioParams::Keys() const {
  std::vector<std::string> keys;
  for (const auto& [name, value] : values_) keys.push_back(name);
  return keys;
}

std::vector<std::string> ScenarioParams::Unread() const {
  std::lock_guard<std::mutex> lock(read_->mutex);
  std::vector<std::string> unread;
  for (const auto& [name, value] : values_) {
    if (!read_->keys.contains(name)) unread.push_back(name);
  }
  return unread;
}

std::string ScenarioParams::SourceOf(std::string_view key) const {
  auto it = values_.find(key);
  int line = it == values_.end() ? line_ : it->second.line;
  return path_ + ":" + std::to_string(line);
}

}  // namespace aftershock::config
