// Test helpers for the metrics tests: durations in the nanoseconds the recorders take, and a
// report's lines.
//
//   histogram.Record(3 * kMs);                                      // 3 ms
//   EXPECT_EQ(Lines("a\nb\n"), (std::vector<std::string>{"a", "b"}));
#ifndef AFTERSHOCK_FRAMEWORK_METRICS_INTERNAL_TEST_UTIL_H_
#define AFTERSHOCK_FRAMEWORK_METRICS_INTERNAL_TEST_UTIL_H_

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace aftershock::metrics::internal {

inline constexpr std::int64_t kUs = 1'000;
inline constexpr std::int64_t kMs = 1'000'000;

// `text` split at '\n' (no trailing empty line).
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace aftershock::metrics::internal

#endif  // AFTERSHOCK_FRAMEWORK_METRICS_INTERNAL_TEST_UTIL_H_
