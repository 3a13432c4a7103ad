#include "framework/config/internal/yaml_map.h"

#include <algorithm>

#include "framework/config/config_error.h"
#include "framework/config/internal/nearest_name.h"

namespace aftershock::config::internal {

int LineOf(const YAML::Node& node, int fallback) {
  if (!node.IsDefined()) return fallback;
  const YAML::Mark mark = node.Mark();
  if (mark.is_null() || mark.line < 0) return fallback;
  return mark.line + 1;
}

std::string DescribeNode(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  return "a scalar";
}

void Fail(const std::string& path, int line, const std::string& message) {
  throw ConfigError(path + ":" + std::to_string(line) + ": " + message);
}

CheckedMap::CheckedMap(const std::string& path, const YAML::Node& node, std::string what,
                       int fallback_line, std::optional<std::vector<std::string>> known)
    : path_(path), what_(std::move(what)), line_(LineOf(node, fallback_line)) {
  if (!node.IsMap()) {
    Fail(path_, line_, what_ + " must be a map, found " + DescribeNode(node));
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key_node = it->first;
    const int key_line = LineOf(key_node, line_);
    if (!key_node.IsScalar()) {
      Fail(path_, key_line, what_ + " has a key that is " + DescribeNode(key_node) +
                                " (keys must be plain names)");
    }
    const std::string key = key_node.Scalar();
    if (const MapEntry* earlier = Find(key)) {
      Fail(path_, key_line, "key '" + key + "' appears twice in " + what_ + " (first at line " +
                                std::to_string(earlier->line) + ")");
    }
    if (known && std::find(known->begin(), known->end(), key) == known->end()) {
      std::string message = "key '" + key + "' is not known (known: " + JoinNames(*known) + ")";
      std::string nearest = NearestName(key, *known);
      if (!nearest.empty()) message += "; did you mean '" + nearest + "'?";
      Fail(path_, key_line, message);
    }
    entries_.push_back(MapEntry{key, it->second, key_line});
  }
}

const MapEntry* CheckedMap::Find(std::string_view key) const {
  for (const MapEntry& entry : entries_) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

const MapEntry& CheckedMap::Require(std::string_view key) const {
  const MapEntry* entry = Find(key);
  if (entry == nullptr) {
    Fail(path_, line_, what_ + " has no key '" + std::string(key) + "' (required)");
  }
  return *entry;
}

std::string ScalarText(const std::string& path, const MapEntry& entry, std::string_view expected) {
  if (!entry.value.IsScalar()) {
    // An empty value's mark may point past the key; the key's own line is where to look.
    const int line = entry.value.IsNull() ? entry.line : LineOf(entry.value, entry.line);
    Fail(path, line,
         "key '" + entry.key + "': expected " + std::string(expected) + ", found " +
             DescribeNode(entry.value));
  }
  return entry.value.Scalar();
}

}  // namespace aftershock::config::internal
