#include "framework/gates/internal/format_number.h"

#include <cmath>
#include <cstdio>

namespace aftershock::gates::internal {

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f", value);
  std::string out(buf);
  while (!out.empty() && out.back() == '0') out.pop_back();
  if (!out.empty() && out.back() == '.') out.pop_back();
  if (out == "-0") out = "0";
  return out;
}

}  // namespace aftershock::gates::internal
