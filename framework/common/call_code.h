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
// The connection failed after the request was (or may have been) sent: reset, closed mid-reply, a
// broken pipe on write. The service may have applied it: indeterminate by default.
// (docs/call-codes.md: which code a raw TCP, HTTP or database client reports for each outcome.)
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
// The client knows the request never left it: connection refused, no route, connect timeout, a
// closed local pool. Certainly not applied: never indeterminate, safe to retry even for writes that
// are not idempotent. (It is the service's failure, not the generator's: it was down.)
inline constexpr CallCode kCodeNotSent = -6;

// Where a non-gRPC client's call failed without a response, for ClientFailureCode.
enum class ClientFailure {
  kBeforeSend,     // nothing was sent (refused, unreachable, connect timed out): kCodeNotSent
  kAfterSend,      // the request (or part of it) was sent, no complete answer: kCodeTransportError
  kTimedOut,       // the call's deadline passed after sending: kCodeDeadlineExceeded
};

// True for outcomes that are the load generator's, not the service's.
constexpr bool IsGeneratorSideCode(CallCode code) {
  return code == kCodeGeneratorPoolTimeout || code == kCodeGeneratorPoolWaitDeadline;
}

// The code a raw TCP/HTTP/database client reports for a call that failed without a response.
constexpr CallCode ClientFailureCode(ClientFailure failure) {
  switch (failure) {
    case ClientFailure::kBeforeSend: return kCodeNotSent;
    case ClientFailure::kAfterSend: return kCodeTransportError;
    case ClientFailure::kTimedOut: return kCodeDeadlineExceeded;
  }
  return kCodeUnknown;
}

// The code for a PostgreSQL error by its SQLSTATE (e.g. libpq's PG_DIAG_SQLSTATE), given whether the
// statement (or COMMIT) had been sent. Serialization failure and deadlock (40001, 40P01) are ABORTED
// (rolled back: not applied), statement timeout / cancel (57014) DEADLINE_EXCEEDED, a read-only
// standby (25006) FAILED_PRECONDITION, too many connections / out of resources (53xxx)
// RESOURCE_EXHAUSTED, a unique violation (23505) ALREADY_EXISTS, a connection exception (08xxx) or
// admin shutdown (57P01..57P03) NOT_SENT before sending and TRANSPORT_ERROR after (a COMMIT whose
// answer was lost may have committed), anything else INTERNAL.
CallCode PostgresErrorCode(std::string_view sqlstate, bool sent);

std::string CallCodeName(CallCode code);
// Accepts gRPC names ("UNAVAILABLE"), "HTTP_503", "CODE_55" (CallCodeName of a code without a name) or
// a bare integer; nullopt when unrecognised. ParseCallCode(CallCodeName(c)) == c for every code.
std::optional<CallCode> ParseCallCode(std::string_view text);

}  // namespace aftershock

#endif  // AFTERSHOCK_FRAMEWORK_COMMON_CALL_CODE_H_
