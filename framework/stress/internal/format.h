// Figures as people read them, for the stress reports and gate messages, and the one rounding of
// seconds (as options state them) to the nanoseconds the records carry.
//
//   Num(30.0) == "30";  Num(2.0 / 3) == "0.667";  Num(NAN) == "-"
//   Fixed(1.5, 3) == "1.500"
//   SecondsText(1'234'000'000) == "1.234 s"
//   SecondsToNs(1.5) == 1'500'000'000
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_FORMAT_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace aftershock::stress::internal {

// At most three decimals, no trailing zeros; "-" for NaN, "inf" / "-inf".
std::string Num(double value);
// Exactly `decimals` decimals; "-" for NaN.
std::string Fixed(double value, int decimals);
// Nanoseconds as seconds with 3 decimals and the unit.
std::string SecondsText(std::int64_t ns);
// Seconds as nanoseconds, rounded to the nearest.
std::int64_t SecondsToNs(double seconds);
// Joins with `separator`.
std::string Join(const std::vector<std::string>& parts, const std::string& separator);

}  // namespace aftershock::stress::internal

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_FORMAT_H_
