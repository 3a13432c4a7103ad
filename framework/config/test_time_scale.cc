#include "framework/config/test_time_scale.h"

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

#include "framework/config/scalar_text.h"

namespace aftershock::config {

double ParseTestTimeScale(const char* text) {
  if (text == nullptr || *text == '\0') return 1.0;
  const std::optional<double> scale = ParseNumber(text);
  if (!scale || !(*scale >= 1.0 && *scale <= 100.0)) {
    throw std::invalid_argument(std::string(kTestTimeScaleVariable) + "='" + text +
                                "': want a number from 1 to 100 (docs/environment.md)");
  }
  return *scale;
}

double TestTimeScale() { return ParseTestTimeScale(std::getenv(kTestTimeScaleVariable)); }

}  // namespace aftershock::config
