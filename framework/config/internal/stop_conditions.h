// Parsing the `stop_conditions:` lists of a set manifest (the set's, and a scenario's) into
// StopConditionSpecs; see docs/configuration.md ("Stop conditions") and docs/safety.md.
//
//   stop_conditions:
//     - name: free-disk
//       promql: 'min(node_filesystem_avail_bytes{mountpoint="/"} / node_filesystem_size_bytes{mountpoint="/"})'
//       comparator: "<"
//       threshold: 0.2
//       for_seconds: 10s
//     - name: resets
//       signal: transport_error_ratio
//       window_seconds: 5s
//       comparator: ">"
//       threshold: 0.05
//       for_seconds: 0
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_STOP_CONDITIONS_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_STOP_CONDITIONS_H_

#include <string>
#include <vector>

#include "framework/config/internal/yaml_map.h"
#include "framework/config/scenario_config.h"

namespace aftershock::config::internal {

// Throws ConfigError "path:line: ..." for anything malformed: not a list, an unknown or missing key,
// both or neither of promql and signal, window_seconds with promql or missing with a signal, an
// unknown comparator, a name used twice. `what`: "the manifest" or "scenario 'x'".
std::vector<StopConditionSpec> ParseStopConditions(const std::string& path, const MapEntry& entry,
                                                   const std::string& what);

// `base` with every condition of `overrides` replacing the one of its name, or appended.
std::vector<StopConditionSpec> MergeStopConditions(std::vector<StopConditionSpec> base,
                                                   const std::vector<StopConditionSpec>& overrides);

}  // namespace aftershock::config::internal

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_STOP_CONDITIONS_H_
