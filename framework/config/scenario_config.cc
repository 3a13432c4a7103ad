#include "framework/config/scenario_config.h"

#include <algorithm>

namespace aftershock::config {

double ScenarioConfig::PeakRate() const {
  double peak = 0;
  for (const load::StageSpec& stage : profile) {
    peak = std::max(peak, stage.rate_from);
    if (stage.kind != load::StageKind::kConstant && stage.kind != load::StageKind::kSoak) {
      peak = std::max(peak, stage.rate_to);
    }
  }
  return peak;
}

double ScenarioConfig::ProfileSeconds() const {
  double total = 0;
  for (const load::StageSpec& stage : profile) total += stage.duration_seconds;
  return total;
}

}  // namespace aftershock::config
