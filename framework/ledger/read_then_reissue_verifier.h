// ReadThenReissueVerifier: a PromiseVerifier built from a service's two calls, in the one safe order.
//
// First the read-back (P3: the acknowledged value must resolve to its key), then the re-issue (P2:
// the key must produce the identical value again). The re-issue runs after the read so it cannot
// repair the mapping the read is checking; when the read-back fails with a transport error the
// re-issue is skipped, so a lost mapping is never silently recreated before anyone saw it missing.
//
//   ReadThenReissueVerifier verifier(
//       [&](const std::string& pseudonym, auto deadline) { return GetOriginal(pseudonym, deadline); },
//       [&](const std::string& original, auto deadline) { return CreatePseudonym(original, deadline); });
//   VerificationReport report = VerifyLedger(sample, indeterminate, verifier);
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_READ_THEN_REISSUE_VERIFIER_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_READ_THEN_REISSUE_VERIFIER_H_

#include <chrono>
#include <functional>
#include <string>

#include "framework/ledger/verifier.h"

namespace aftershock::ledger {

struct ReadBackResult {
  enum Status { kFound, kNotFound, kError };
  Status status = kError;
  std::string key;    // when kFound
  std::string error;  // when kError
  CallCode code = kCodeUnknown;  // when kError: the call's code (decides retrying, names the count)
};

struct ReissueResult {
  bool ok = false;
  std::string value;  // when ok
  std::string error;  // when !ok
  CallCode code = kCodeUnknown;  // when !ok
};

class ReadThenReissueVerifier : public PromiseVerifier {
 public:
  using Deadline = std::chrono::system_clock::time_point;
  using ReadBack = std::function<ReadBackResult(const std::string& value, Deadline deadline)>;
  using Reissue = std::function<ReissueResult(const std::string& key, Deadline deadline)>;
  // Optional: whether an indeterminate key committed (e.g. a lookup by key). Unset -> kUnknown.
  using ProbeFn = std::function<IndeterminateCheck(const IndeterminatePromise&, Deadline deadline)>;

  ReadThenReissueVerifier(ReadBack read_back, Reissue reissue, ProbeFn probe = {});

  PromiseCheck Check(const Promise& promise, Deadline deadline) override;
  IndeterminateCheck Probe(const IndeterminatePromise& promise, Deadline deadline) override;

 private:
  ReadBack read_back_;
  Reissue reissue_;
  ProbeFn probe_;
};

}  // namespace aftershock::ledger

#endif  // AFTERSHOCK_FRAMEWORK_LEDGER_READ_THEN_REISSUE_VERIFIER_H_
