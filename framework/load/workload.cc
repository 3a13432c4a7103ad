#include "framework/load/workload.h"

namespace aftershock::load {

std::string_view IdempotencyName(Idempotency idempotency) {
  switch (idempotency) {
    case Idempotency::kUndeclared: return "undeclared";
    case Idempotency::kIdempotent: return "idempotent";
    case Idempotency::kNonIdempotent: return "non-idempotent";
  }
  return "?";
}

bool ShouldRetry(const OutcomePolicy& policy, Idempotency idempotency, CallCode code) {
  if (policy.is_success(code) || policy.retryable.count(code) == 0) return false;
  // The first attempt may have been applied: a second copy of a non-idempotent call could apply twice.
  if (idempotency == Idempotency::kNonIdempotent && policy.indeterminate.count(code) != 0) return false;
  return true;
}

std::string RetryDeclarationProblem(const OutcomePolicy& policy, Idempotency idempotency) {
  if (idempotency != Idempotency::kUndeclared) return "";
  std::string risky;
  for (CallCode code : policy.retryable) {
    if (policy.indeterminate.count(code) == 0) continue;
    risky += (risky.empty() ? "" : ", ") + CallCodeName(code);
  }
  if (risky.empty()) return "";
  return "the outcome policy retries " + risky +
         ", after which the first attempt may have been applied, but the workload does not declare whether "
         "its calls are idempotent: override Workload::CallIdempotency() (kIdempotent retries them, "
         "kNonIdempotent never retries a call that may have been applied), or empty OutcomePolicy::retryable";
}

}  // namespace aftershock::load
