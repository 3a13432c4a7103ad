// Parsing a set manifest's `slo:` maps (the set's default, a scenario's override) into SloSpec; see
// framework/config/slo_spec.h and docs/configuration.md ("Service-level objectives").
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_SLO_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_SLO_H_

#include <string>
#include <vector>

#include "framework/config/internal/yaml_map.h"
#include "framework/config/slo_spec.h"

namespace aftershock::config::internal {

// Throws ConfigError "path:line: ..." for anything malformed: not a map, an unknown key, a ratio
// outside 0..1, a latency key that is not p<percentile> (0 < percentile <= 100), a bound that is not
// a positive duration, stages that are not a list of names or name one twice, and an `slo:` that
// declares no objective. `what`: "the manifest" or "scenario 'x'".
SloSpec ParseSlo(const std::string& path, const MapEntry& entry, const std::string& what);

// `base` with every objective `override_spec` declares replacing base's (latency by percentile;
// stages as a whole when given).
SloSpec MergeSlo(SloSpec base, const SloSpec& override_spec);

// Throws ConfigError at spec.source when a judged stage is not one of `stage_names`.
void CheckSloStages(const SloSpec& spec, const std::vector<std::string>& stage_names, const std::string& what);

}  // namespace aftershock::config::internal

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_SLO_H_
