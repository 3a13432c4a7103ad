// Promise and IndeterminatePromise: what the service said it did, as the ledger keeps it.
//
// A Promise is an acknowledged outcome the service must keep for ever. Its kind says what it asserts
// and so which properties verification checks:
//   kIssued  (the pseudonym's): the service issued `value` for `key`, e.g. Create("alice") answered
//            "p-17": reverse lookup (P3: Get("p-17") returns "alice") and re-issue stability (P2:
//            Create("alice") again answers "p-17").
//   kWritten (a key-value store's): the service acknowledged writing `value` under `key`: read-back
//            (P3: Get(key) returns value). Nothing is re-issued, so P2 does not apply.
// An IndeterminatePromise is a call whose outcome the client never learned (deadline
// exceeded, UNAVAILABLE after retries): it may or may not have committed, so it is never counted lost.
//
//   Promise p{.key = "alice", .value = "p-17", .unix_ms = clock.UnixMs(Clock::now())};   // kIssued
//   Promise w{.key = "k-1", .value = "v-1", .unix_ms = now_ms, .kind = PromiseKind::kWritten};
//   IndeterminatePromise q{.key = "bob", .unix_ms = p.unix_ms, .code = kCodeDeadlineExceeded};
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_PROMISE_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_PROMISE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "framework/common/call_code.h"

namespace aftershock::ledger {

enum class PromiseKind { kIssued, kWritten };
// "issued" / "written".
constexpr std::string_view PromiseKindName(PromiseKind kind) {
  return kind == PromiseKind::kIssued ? "issued" : "written";
}

struct Promise {
  std::string key;
  std::string value;
  std::int64_t unix_ms = 0;  // when the acknowledgement arrived (wall clock, RunClock::UnixMs)
  PromiseKind kind = PromiseKind::kIssued;

  friend bool operator==(const Promise&, const Promise&) = default;
};

struct IndeterminatePromise {
  std::string key;
  std::int64_t unix_ms = 0;
  CallCode code = kCodeUnknown;  // the last code the client saw

  friend bool operator==(const IndeterminatePromise&, const IndeterminatePromise&) = default;
};

}  // namespace aftershock::ledger

#endif  // AFTERSHOCK_FRAMEWORK_LEDGER_PROMISE_H_
