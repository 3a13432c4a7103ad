// Promise and IndeterminatePromise: what the service said it did, as the ledger keeps it.
//
// A Promise is an acknowledged outcome the service must keep for ever (e.g. original -> pseudonym:
// Create("alice") answered "p-17", so Get("p-17") must return "alice" and Create("alice") must again
// answer "p-17"). An IndeterminatePromise is a call whose outcome the client never learned (deadline
// exceeded, UNAVAILABLE after retries): it may or may not have committed, so it is never counted lost.
//
//   Promise p{.key = "alice", .value = "p-17", .unix_ms = clock.UnixMs(Clock::now())};
//   IndeterminatePromise q{.key = "bob", .unix_ms = p.unix_ms, .code = kCodeDeadlineExceeded};
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_PROMISE_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_PROMISE_H_

#include <cstdint>
#include <string>

#include "framework/common/call_code.h"

namespace aftershock::ledger {

struct Promise {
  std::string key;
  std::string value;
  std::int64_t unix_ms = 0;  // when the acknowledgement arrived (wall clock, RunClock::UnixMs)

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
