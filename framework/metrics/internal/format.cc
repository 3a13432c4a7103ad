#include "framework/metrics/internal/format.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace aftershock::metrics::internal {

std::string FormatFixed(double value, int decimals) {
  if (!std::isfinite(value)) value = 0;
  std::array<char, 64> buffer{};
  const int n = std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  if (n < 0) return "0";
  if (static_cast<std::size_t>(n) < buffer.size()) return std::string(buffer.data(), static_cast<std::size_t>(n));
  std::string big(static_cast<std::size_t>(n) + 1, '\0');  // huge values: print again at full size
  std::snprintf(big.data(), big.size(), "%.*f", decimals, value);
  big.resize(static_cast<std::size_t>(n));
  return big;
}

std::string NsToMsText(std::int64_t ns) { return FormatFixed(static_cast<double>(ns) / 1e6, 3); }

std::string ShortestDouble(double value) {
  if (!std::isfinite(value)) return "null";
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string JsonQuoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          std::array<char, 8> escape{};
          std::snprintf(escape.data(), escape.size(), "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += escape.data();
        } else {
          out += c;  // UTF-8 bytes pass through unchanged
        }
    }
  }
  out += '"';
  return out;
}

std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace aftershock::metrics::internal
