// ReadBackVerifier: a PromiseVerifier for "what I wrote must read back" (key -> value) promises.
//
// Built from one user function that reads a key from the service: found with its value, not found,
// or an error with its call code. Each promise (kind kWritten, promise.h) is checked by reading its
// key: the acknowledged value must come back (P3 read-back); NotFound or another value is a
// violation, an error leaves the promise undecided (retried by VerifyLedger for transient codes).
// Nothing is re-issued, so P2 is reported "not checked" and its gate says "not applicable". The
// read never writes, so verification cannot repair what it checks. An indeterminate write is probed
// with the same read: a key that is there committed, one that is absent did not (this assumes every
// call writes a fresh key, as a load generator's calls do).
//
//   ReadBackVerifier verifier([&](const std::string& key, ReadBackVerifier::Deadline deadline) {
//     HttpReply r = HttpFetch(addr, {.target = "/kv/" + key}, TimeLeft(deadline));
//     if (r.status == 200) return KeyRead::Found(r.body);
//     if (r.status == 404) return KeyRead::NotFound();
//     return KeyRead::Error(r.status != 0 ? r.status : kCodeTransportError, r.error);
//   });
//   VerificationReport report = VerifyLedger(ledger.Sample(), ledger.Indeterminate(), verifier);
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_READ_BACK_VERIFIER_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_READ_BACK_VERIFIER_H_

#include <chrono>
#include <functional>
#include <string>

#include "framework/ledger/verifier.h"

namespace aftershock::ledger {

// What reading one key returned.
struct KeyRead {
  enum Status { kFound, kNotFound, kError };
  Status status = kError;
  std::string value;             // when kFound
  std::string error;             // when kError
  CallCode code = kCodeUnknown;  // when kError: the call's code (decides retrying, names the count)

  static KeyRead Found(std::string value) { return {kFound, std::move(value), "", kCodeOk}; }
  static KeyRead NotFound() { return {kNotFound, "", "", kCodeOk}; }
  static KeyRead Error(CallCode code, std::string error) { return {kError, "", std::move(error), code}; }
};

class ReadBackVerifier : public PromiseVerifier {
 public:
  using Deadline = std::chrono::system_clock::time_point;
  using Read = std::function<KeyRead(const std::string& key, Deadline deadline)>;

  // `probe_indeterminate`: probe indeterminate writes with `read` (see above); false: kUnknown.
  explicit ReadBackVerifier(Read read, bool probe_indeterminate = true);

  PromiseCheck Check(const Promise& promise, Deadline deadline) override;
  IndeterminateCheck Probe(const IndeterminatePromise& promise, Deadline deadline) override;

 private:
  Read read_;
  bool probe_indeterminate_;
};

// What is left until `deadline` (at least 1 ms), for a client's own timeout.
std::chrono::milliseconds TimeLeft(ReadBackVerifier::Deadline deadline);

}  // namespace aftershock::ledger

#endif  // AFTERSHOCK_FRAMEWORK_LEDGER_READ_BACK_VERIFIER_H_
