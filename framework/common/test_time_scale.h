// TestTimeScale: how much slower than a plain build this test program runs, for aftershock's own
// tests. A sanitizer build runs several times slower (ThreadSanitizer 5-15x), so a bound on time
// that holds a plain build to its promise (a dispatch lag p99 under 10 ms, a head start of 1.5 s for
// two processes) measures the sanitizer there, not the code. Such a test multiplies its bound by
// TestTimeScale(); the sanitizer test presets set AFTERSHOCK_TEST_TIME_SCALE (CMakePresets.json,
// docs/sanitizers.md), every other run leaves it unset and gets 1. A bound on counts, order or
// content is never scaled.
//
//   const auto head_start = Scaled(std::chrono::milliseconds(1500));
//   EXPECT_LT(p99, 500'000'000 * TestTimeScale());
#ifndef AFTERSHOCK_FRAMEWORK_COMMON_TEST_TIME_SCALE_H_
#define AFTERSHOCK_FRAMEWORK_COMMON_TEST_TIME_SCALE_H_

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace aftershock {

inline constexpr char kTestTimeScaleVariable[] = "AFTERSHOCK_TEST_TIME_SCALE";

// The factor read from `text` (the variable's value; null or empty: 1). Throws std::invalid_argument
// naming the variable unless it is a plain number from 1 to 100.
inline double ParseTestTimeScale(const char* text) {
  if (text == nullptr || *text == '\0') return 1.0;
  const std::string value(text);
  std::size_t used = 0;
  double scale = 0;
  try {
    scale = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const bool plain = value.front() >= '0' && value.front() <= '9';  // std::stod skips spaces and signs
  if (!plain || used != value.size() || !(scale >= 1.0 && scale <= 100.0)) {
    throw std::invalid_argument(std::string(kTestTimeScaleVariable) + "='" + value +
                                "': want a number from 1 to 100 (docs/environment.md)");
  }
  return scale;
}

inline double TestTimeScale() { return ParseTestTimeScale(std::getenv(kTestTimeScaleVariable)); }

template <typename Rep, typename Period>
std::chrono::duration<Rep, Period> Scaled(std::chrono::duration<Rep, Period> d) {
  return std::chrono::duration<Rep, Period>(static_cast<Rep>(static_cast<double>(d.count()) * TestTimeScale()));
}

}  // namespace aftershock

#endif  // AFTERSHOCK_FRAMEWORK_COMMON_TEST_TIME_SCALE_H_
