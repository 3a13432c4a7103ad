#include "framework/common/call_code.h"

#include <array>
#include <charconv>

namespace aftershock {
namespace {

constexpr std::array<std::string_view, 17> kGrpcNames = {
    "OK",        "CANCELLED",         "UNKNOWN",          "INVALID_ARGUMENT",    "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED",     "INTERNAL",         "UNAVAILABLE",         "DATA_LOSS",
    "UNAUTHENTICATED"};

}  // namespace

std::string CallCodeName(CallCode code) {
  if (code >= 0 && code < static_cast<CallCode>(kGrpcNames.size())) return std::string(kGrpcNames[code]);
  if (code >= 100 && code <= 599) return "HTTP_" + std::to_string(code);
  switch (code) {
    case kCodeShed: return "SHED";
    case kCodeTransportError: return "TRANSPORT_ERROR";
    case kCodeContractViolation: return "CONTRACT_VIOLATION";
    case kCodeGeneratorPoolTimeout: return "GENERATOR_POOL_TIMEOUT";
    case kCodeGeneratorPoolWaitDeadline: return "GENERATOR_POOL_WAIT_DEADLINE";
    case kCodeNotSent: return "NOT_SENT";
    default: return "CODE_" + std::to_string(code);
  }
}

CallCode PostgresErrorCode(std::string_view sqlstate, bool sent) {
  constexpr CallCode kAborted = 10, kFailedPrecondition = 9, kResourceExhausted = 8, kAlreadyExists = 6;
  if (sqlstate == "40001" || sqlstate == "40P01") return kAborted;
  if (sqlstate == "57014") return kCodeDeadlineExceeded;
  if (sqlstate == "25006") return kFailedPrecondition;
  if (sqlstate == "23505") return kAlreadyExists;
  if (sqlstate.substr(0, 2) == "53") return kResourceExhausted;
  if (sqlstate.substr(0, 2) == "08" || sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03") {
    return sent ? kCodeTransportError : kCodeNotSent;
  }
  return kCodeInternal;
}

std::optional<CallCode> ParseCallCode(std::string_view text) {
  for (std::size_t i = 0; i < kGrpcNames.size(); ++i) {
    if (text == kGrpcNames[i]) return static_cast<CallCode>(i);
  }
  if (text == "SHED") return kCodeShed;
  if (text == "TRANSPORT_ERROR") return kCodeTransportError;
  if (text == "CONTRACT_VIOLATION") return kCodeContractViolation;
  if (text == "GENERATOR_POOL_TIMEOUT") return kCodeGeneratorPoolTimeout;
  if (text == "GENERATOR_POOL_WAIT_DEADLINE") return kCodeGeneratorPoolWaitDeadline;
  if (text == "NOT_SENT") return kCodeNotSent;
  std::string_view digits = text;
  // "CODE_<n>" is what CallCodeName writes for a code without a name: it must read back (a ledger
  // file holding one otherwise fails to re-parse once written; found by fuzz/ledger_file_fuzz.cc).
  if (digits.substr(0, 5) == "HTTP_" || digits.substr(0, 5) == "CODE_") digits.remove_prefix(5);
  CallCode value = 0;
  const auto* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (ec != std::errc() || ptr != end || digits.empty()) return std::nullopt;
  if (text.substr(0, 5) == "HTTP_" && (value < 100 || value > 599)) return std::nullopt;
  return value;
}

}  // namespace aftershock
