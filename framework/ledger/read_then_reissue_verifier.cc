#include "framework/ledger/read_then_reissue_verifier.h"

#include <utility>

namespace aftershock::ledger {

ReadThenReissueVerifier::ReadThenReissueVerifier(ReadBack read_back, Reissue reissue, ProbeFn probe)
    : read_back_(std::move(read_back)), reissue_(std::move(reissue)), probe_(std::move(probe)) {}

PromiseCheck ReadThenReissueVerifier::Check(const Promise& promise, Deadline deadline) {
  PromiseCheck check;
  const ReadBackResult read = read_back_(promise.value, deadline);
  switch (read.status) {
    case ReadBackResult::kFound:
      check.observed_key = read.key;
      check.lookup = read.key == promise.key ? PromiseCheck::Lookup::kHeld : PromiseCheck::Lookup::kWrongKey;
      break;
    case ReadBackResult::kNotFound: check.lookup = PromiseCheck::Lookup::kNotFound; break;
    case ReadBackResult::kError:
      check.lookup = PromiseCheck::Lookup::kError;
      check.stability = PromiseCheck::Stability::kError;
      check.error = "read-back: " + read.error + " (re-issue skipped)";
      check.error_code = read.code;
      return check;
  }
  const ReissueResult again = reissue_(promise.key, deadline);
  if (!again.ok) {
    check.stability = PromiseCheck::Stability::kError;
    check.error = "re-issue: " + again.error;
    check.error_code = again.code;
    return check;
  }
  check.SetReissued(promise, again.value);
  return check;
}

IndeterminateCheck ReadThenReissueVerifier::Probe(const IndeterminatePromise& promise, Deadline deadline) {
  if (!probe_) return {IndeterminateCheck::kUnknown};
  return probe_(promise, deadline);
}

}  // namespace aftershock::ledger
