// TestTimeScale: how much slower than a plain build this test program runs, for aftershock's own
// tests. A sanitizer build runs several times slower (ThreadSanitizer 5-15x), so a bound on time
// that holds a plain build to its promise (a dispatch lag p99 under 10 ms, a head start of 1.5 s for
// two processes) measures the sanitizer there, not the code. Such a test multiplies its bound by
// TestTimeScale(); the sanitizer test presets set AFTERSHOCK_TEST_TIME_SCALE (CMakePresets.json,
// docs/sanitizers.md), every other run leaves it unset and gets 1. A bound on counts, order or
// content is never scaled. The value is read by the configuration's strict number rules
// (scalar_text.h): no blanks, no "inf", no unit.
//
//   const auto head_start = config::Scaled(std::chrono::milliseconds(1500));
//   EXPECT_LT(p99, 500'000'000 * config::TestTimeScale());
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_TEST_TIME_SCALE_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_TEST_TIME_SCALE_H_

#include <chrono>

namespace aftershock::config {

inline constexpr char kTestTimeScaleVariable[] = "AFTERSHOCK_TEST_TIME_SCALE";

// The factor read from `text` (the variable's value; null or empty: 1). Throws std::invalid_argument
// naming the variable unless it is a number from 1 to 100.
double ParseTestTimeScale(const char* text);

// ParseTestTimeScale of this process's AFTERSHOCK_TEST_TIME_SCALE.
double TestTimeScale();

template <typename Rep, typename Period>
std::chrono::duration<Rep, Period> Scaled(std::chrono::duration<Rep, Period> d) {
  return std::chrono::duration<Rep, Period>(static_cast<Rep>(static_cast<double>(d.count()) * TestTimeScale()));
}

}  // namespace aftershock::config

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_TEST_TIME_SCALE_H_
