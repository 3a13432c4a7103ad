// Parsing the `profile:` list of a scenario into StageSpecs (see set_manifest.h for the format).
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_PROFILE_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_PROFILE_H_

#include <string>
#include <vector>

#include "framework/config/internal/yaml_map.h"
#include "framework/load/stage_spec.h"

namespace aftershock::config::internal {

// Non-empty, every stage valid, names unique, and at least one stage offering load.
std::vector<load::StageSpec> ParseProfile(const std::string& path, const MapEntry& profile_entry,
                                          const std::string& scenario);

}  // namespace aftershock::config::internal

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_PROFILE_H_
