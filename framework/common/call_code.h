// CallCode: one integer space for the outcome codes of every transport.
//
// gRPC status codes keep their values (0 = OK ... 16 = UNAUTHENTICATED), HTTP statuses are 100..599,
// and the framework's own outcomes are negative. Timelines and reports count failures by these codes
// and print them by name, so the same columns work for gRPC and HTTP workloads.
//
//   CallCodeName(14)            -> "UNAVAILABLE"
//   CallCodeName(503)           -> "HTTP_503"
//   CallCodeName(kCodeShed)     -> "SHED"
//   ParseCallCode("UNAVAILABLE") -> 14
#ifndef AFTERSHOCK_FRAMEWORK_COMMON_CALL_CODE_H_
#define AFTERSHOCK_FRAMEWORK_COMMON_CALL_CODE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aftershock {

using CallCode = std::int32_t;

inline constexpr CallCode kCodeOk = 0;
inline constexpr CallCode kCodeCancelled = 1;
inline constexpr CallCode kCodeUnknown = 2;
inline constexpr CallCode kCodeDeadlineExceeded = 4;
inline constexpr CallCode kCodeNotFound = 5;
inline constexpr CallCode kCodeInternal = 13;
inline constexpr CallCode kCodeUnavailable = 14;
// The arrival found the in-flight ceiling full and was never issued (counted as a failure).
inline constexpr CallCode kCodeShed = -1;
// The transport could not issue the call at all (e.g. connection refused before sending).
inline constexpr CallCode kCodeTransportError = -2;
// The response arrived but broke the workload's contract (e.g. an empty body with 200).
inline constexpr CallCode kCodeContractViolation = -3;

std::string CallCodeName(CallCode code);
// Accepts gRPC names ("UNAVAILABLE"), "HTTP_503" or a bare integer; nullopt when unrecognised.
std::optional<CallCode> ParseCallCode(std::string_view text);

}  // namespace aftershock

#endif  // AFTERSHOCK_FRAMEWORK_COMMON_CALL_CODE_H_
