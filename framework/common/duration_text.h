// MsText: a duration as it reads in an error message or a note, "250 ms".
//
//   throw std::runtime_error("no answer within " + MsText(timeout));   // "... within 250 ms"
#ifndef AFTERSHOCK_FRAMEWORK_COMMON_DURATION_TEXT_H_
#define AFTERSHOCK_FRAMEWORK_COMMON_DURATION_TEXT_H_

#include <chrono>
#include <string>

namespace aftershock {

inline std::string MsText(std::chrono::milliseconds d) { return std::to_string(d.count()) + " ms"; }

}  // namespace aftershock

#endif  // AFTERSHOCK_FRAMEWORK_COMMON_DURATION_TEXT_H_
