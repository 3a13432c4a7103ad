// FormatNumber: figures for gate messages, written the way a person reads them: integers without
// decimals ("30"), other values with at most three decimals and no trailing zeros ("12.5", "0.333").
//
//   FormatNumber(30.0) == "30";  FormatNumber(2.0 / 3) == "0.667"
//   Percent(0.125) == "12.5 %"
#ifndef AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_FORMAT_NUMBER_H_
#define AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_FORMAT_NUMBER_H_

#include <string>

namespace aftershock::gates::internal {

std::string FormatNumber(double value);

// A ratio as a percentage, for the promise and SLO gates' messages.
inline std::string Percent(double ratio) { return FormatNumber(ratio * 100) + " %"; }

}  // namespace aftershock::gates::internal

#endif  // AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_FORMAT_NUMBER_H_
