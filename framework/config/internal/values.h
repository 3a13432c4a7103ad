// Reading one checked value (number, duration, integer) from a manifest map entry.
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_VALUES_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_VALUES_H_

#include <string>

#include "framework/config/internal/knobs.h"
#include "framework/config/internal/yaml_map.h"

namespace aftershock::config::internal {

// The value of `entry` as `kind` within `bound`; throws "path:line: key 'k': '10x' is not a duration
// (...)" or "path:line: key 'k': expected a duration, found a map".
double ReadValue(const std::string& path, const MapEntry& entry, ValueKind kind, Bound bound);

// A non-empty string scalar.
std::string ReadName(const std::string& path, const MapEntry& entry);

}  // namespace aftershock::config::internal

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_VALUES_H_
