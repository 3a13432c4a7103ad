// Test helpers for the stress tests: durations in the nanoseconds the call records carry.
//
//   r.intended_ns = 1500 * kMs;   // 1.5 s into the run
//   EXPECT_EQ(trip_ns, 3 * kS);
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_TEST_UNITS_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_TEST_UNITS_H_

#include <cstdint>

namespace aftershock::stress::internal {

inline constexpr std::int64_t kMs = 1'000'000;
inline constexpr std::int64_t kS = 1'000'000'000;

}  // namespace aftershock::stress::internal

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_TEST_UNITS_H_
