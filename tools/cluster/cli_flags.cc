#include "tools/cluster/cli_flags.h"

#include <signal.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace aftershock::cluster::cli {

namespace fs = std::filesystem;

bool ProcessAlive(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

std::string SocketPathFor(const std::string& state_path) {
  return (fs::path(state_path).parent_path() / "control.sock").string();
}

std::optional<int> ParseNumber(const std::string& text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::stoi(text);
}

std::optional<std::chrono::milliseconds> ParseDuration(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::optional<int> number = ParseNumber(text.substr(0, digits));
  if (!number) return std::nullopt;
  const std::string unit = text.substr(digits);
  const std::int64_t n = *number;
  if (unit == "ms") return std::chrono::milliseconds(n);
  if (unit == "s") return std::chrono::milliseconds(n * 1000);
  if (unit == "m") return std::chrono::milliseconds(n * 60000);
  if (unit == "h") return std::chrono::milliseconds(n * 3600000);
  return std::nullopt;
}

std::optional<double> ParseFraction(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == nullptr || *end != '\0' || !std::isfinite(value) || value < 0 || value > 1) return std::nullopt;
  return value;
}

std::string FormatDuration(std::chrono::milliseconds d) {
  if (d.count() % 3600000 == 0) return std::to_string(d.count() / 3600000) + "h";
  if (d.count() % 60000 == 0) return std::to_string(d.count() / 60000) + "m";
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}


}  // namespace aftershock::cluster::cli
