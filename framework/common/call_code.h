// CallCode: one integer space for the outcome codes of every transport.
//
// gRPC status codes keep their values (0 = OK ... 16 = UNAUTHENTICATED), HTTP statuses are 100..599,
// and the framework's own outcomes are negative. Timelines and reports count failures by these codes
// and print them by name, so the same columns work for gRPC and HTTP workloads.
//
//   CallCodeName(14)            -> "UNAVAILABLE"
//   CallCodeName(503)           -> "HTTP_503"
//   CallCodeName(kCodeShed)     -> "SHED"
//   CallCodeName(kCodeGeneratorPoolTimeout) -> "GENERATOR_POOL_TIMEOUT"
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
// The attempt reached its deadline still waiting for a free connection in the generator's own pool
// (e.g. HttpWorkload's keep-alive pool): it never reached the service. Generator-side: counted apart
// from the service's failures, and it makes the run generator-limited.
inline constexpr CallCode kCodeGeneratorPoolTimeout = -4;
// The attempt waited for a connection in the generator's own pool, was then sent, and reached its
// deadline on the wire: the deadline was spent partly in the generator, so the outcome is the
// generator's (and indeterminate: the request did reach the service).
inline constexpr CallCode kCodeGeneratorPoolWaitDeadline = -5;

// True for outcomes that are the load generator's, not the service's.
constexpr bool IsGeneratorSideCode(CallCode code) {
  return code == kCodeGeneratorPoolTimeout || code == kCodeGeneratorPoolWaitDeadline;
}

std::string CallCodeName(CallCode code);
// Accepts gRPC names ("UNAVAILABLE"), "HTTP_503" or a bare integer; nullopt when unrecognised.
std::optional<CallCode> ParseCallCode(std::string_view text);

}  // namespace aftershock

#endif  // AFTERSHOCK_FRAMEWORK_COMMON_CALL_CODE_H_
