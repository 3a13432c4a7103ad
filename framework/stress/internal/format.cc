#include "framework/stress/internal/format.h"

#include <cmath>
#include <cstdio>

namespace aftershock::stress::internal {

std::int64_t SecondsToNs(double seconds) { return static_cast<std::int64_t>(std::llround(seconds * 1e9)); }

std::string Num(double value) {
  if (std::isnan(value)) return "-";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::string out = Fixed(value, 3);
  while (!out.empty() && out.back() == '0') out.pop_back();
  if (!out.empty() && out.back() == '.') out.pop_back();
  if (out == "-0") out = "0";
  return out;
}

std::string Fixed(double value, int decimals) {
  if (std::isnan(value)) return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string SecondsText(std::int64_t ns) { return Fixed(static_cast<double>(ns) / 1e9, 3) + " s"; }

std::string Join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? separator : "") + parts[i];
  return out;
}

}  // namespace aftershock::stress::internal
