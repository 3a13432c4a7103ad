// Strict reading of yaml-cpp nodes with file:line in every message: a map whose keys are checked
// (unknown, duplicate, not a scalar), and scalar access that names the key when the node is a map, a
// list or empty.
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_YAML_MAP_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_YAML_MAP_H_

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aftershock::config::internal {

// 1-based line of `node`, or `fallback` for nodes without a mark (absent or built in memory).
int LineOf(const YAML::Node& node, int fallback);

// "a map", "a list", "a scalar", "nothing".
std::string DescribeNode(const YAML::Node& node);

// Throws ConfigError "path:line: message".
[[noreturn]] void Fail(const std::string& path, int line, const std::string& message);

struct MapEntry {
  std::string key;
  YAML::Node value;
  int line = 0;  // of the key
};

class CheckedMap {
 public:
  // Throws when `node` is not a map or a key is not a scalar or appears twice; and, when `known` is
  // given, when a key is not in it. `what` names the map in messages ("defaults", "scenario 'x'").
  CheckedMap(const std::string& path, const YAML::Node& node, std::string what, int fallback_line,
             std::optional<std::vector<std::string>> known);

  const MapEntry* Find(std::string_view key) const;
  // Throws "path:line: <what> has no key 'k' (required)".
  const MapEntry& Require(std::string_view key) const;
  const std::vector<MapEntry>& entries() const { return entries_; }
  int line() const { return line_; }
  const std::string& what() const { return what_; }

 private:
  std::string path_;
  std::string what_;
  int line_ = 0;
  std::vector<MapEntry> entries_;
};

// The scalar text of `entry`; throws "path:line: key 'k': expected <expected>, found a map" etc.
std::string ScalarText(const std::string& path, const MapEntry& entry, std::string_view expected);

}  // namespace aftershock::config::internal

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_YAML_MAP_H_
