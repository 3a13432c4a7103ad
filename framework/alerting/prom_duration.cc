#include "framework/alerting/prom_duration.h"

#include <array>
#include <cctype>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace aftershock::alerting {
namespace {

struct Unit {
  const char* name;
  std::int64_t ms;
};

// Descending order, as Prometheus requires; "ms" before "m" so the longer name wins.
constexpr std::array<Unit, 7> kUnits = {{{"y", 365LL * 24 * 3600 * 1000},
                                         {"w", 7LL * 24 * 3600 * 1000},
                                         {"d", 24LL * 3600 * 1000},
                                         {"h", 3600LL * 1000},
                                         {"ms", 1},
                                         {"m", 60LL * 1000},
                                         {"s", 1000}}};

// Rank in Prometheus' required order y > w > d > h > m > s > ms.
int Rank(const std::string& unit) {
  static constexpr std::array<const char*, 7> kOrder = {"y", "w", "d", "h", "m", "s", "ms"};
  for (std::size_t i = 0; i < kOrder.size(); ++i) {
    if (unit == kOrder[i]) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

std::chrono::milliseconds ParsePromDuration(const std::string& text) {
  const auto bad = [&text](const std::string& why) {
    return std::invalid_argument("bad Prometheus duration '" + text + "': " + why);
  };
  if (text == "0") return std::chrono::milliseconds(0);
  if (text.empty()) throw bad("empty");
  std::int64_t total = 0;
  int last_rank = -1;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t digits_end = i;
    while (digits_end < text.size() && std::isdigit(static_cast<unsigned char>(text[digits_end]))) {
      ++digits_end;
    }
    if (digits_end == i) throw bad("expected a number at position " + std::to_string(i));
    if (digits_end - i > 12) throw bad("number too large");
    const std::int64_t number = std::stoll(text.substr(i, digits_end - i));
    const Unit* unit = nullptr;
    for (const Unit& candidate : kUnits) {
      const std::string name = candidate.name;
      if (text.compare(digits_end, name.size(), name) == 0) {
        unit = &candidate;
        break;
      }
    }
    if (unit == nullptr) throw bad("expected a unit (y, w, d, h, m, s, ms)");
    const int rank = Rank(unit->name);
    if (rank <= last_rank) throw bad("units must appear once each, largest first");
    last_rank = rank;
    total += number * unit->ms;
    i = digits_end + std::string(unit->name).size();
  }
  return std::chrono::milliseconds(total);
}

std::string FormatPromDuration(std::chrono::milliseconds duration) {
  const std::int64_t ms = duration.count();
  if (ms < 0) throw std::invalid_argument("negative duration " + std::to_string(ms) + "ms");
  if (ms == 0) return "0s";
  static constexpr std::array<std::pair<const char*, std::int64_t>, 4> kFormatUnits = {
      {{"h", 3600LL * 1000}, {"m", 60LL * 1000}, {"s", 1000}, {"ms", 1}}};
  for (const auto& [name, unit_ms] : kFormatUnits) {
    if (ms % unit_ms == 0) return std::to_string(ms / unit_ms) + name;
  }
  return std::to_string(ms) + "ms";  // unreachable: every count is a multiple of 1 ms
}

}  // namespace aftershock::alerting
