#include "framework/config/scalar_text.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace aftershock::config {
namespace {

bool IsNumberCharacter(char c) {
  return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == 'e' || c == 'E' || c == '+';
}

}  // namespace

std::optional<double> ParseNumber(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // from_chars accepts "inf", "nan" and hex floats only with explicit options or letters; we also
  // refuse them by allowing only the characters of a plain decimal number.
  for (char c : text) {
    if (!IsNumberCharacter(c)) return std::nullopt;
  }
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value, std::chars_format::general);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<long long> ParseInteger(std::string_view text) {
  if (text.empty()) return std::nullopt;
  long long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value, 10);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> ParseDuration(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double seconds;
  };
  // "ms" before "s" and "m": the longest suffix that matches wins.
  static constexpr Unit kUnits[] = {{"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}};
  for (const Unit& unit : kUnits) {
    if (text.size() > unit.suffix.size() && text.ends_with(unit.suffix)) {
      std::string_view number = text.substr(0, text.size() - unit.suffix.size());
      std::optional<double> value = ParseNumber(number);
      if (!value) return std::nullopt;
      return *value * unit.seconds;
    }
  }
  return ParseNumber(text);
}

}  // namespace aftershock::config
