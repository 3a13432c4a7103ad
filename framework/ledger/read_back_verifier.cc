#include "framework/ledger/read_back_verifier.h"

#include <algorithm>
#include <utility>

namespace aftershock::ledger {

ReadBackVerifier::ReadBackVerifier(Read read, bool probe_indeterminate)
    : read_(std::move(read)), probe_indeterminate_(probe_indeterminate) {}

PromiseCheck ReadBackVerifier::Check(const Promise& promise, Deadline deadline) {
  PromiseCheck check;
  check.lookup = PromiseCheck::Lookup::kNotChecked;
  check.stability = PromiseCheck::Stability::kNotChecked;
  const KeyRead read = read_(promise.key, deadline);
  switch (read.status) {
    case KeyRead::kFound:
      check.observed_read = read.value;
      check.read_back = read.value == promise.value ? PromiseCheck::ReadBack::kHeld : PromiseCheck::ReadBack::kWrongValue;
      break;
    case KeyRead::kNotFound: check.read_back = PromiseCheck::ReadBack::kNotFound; break;
    case KeyRead::kError:
      check.read_back = PromiseCheck::ReadBack::kError;
      check.error = "read-back: " + (read.error.empty() ? CallCodeName(read.code) : read.error);
      check.error_code = read.code;
      break;
  }
  return check;
}

IndeterminateCheck ReadBackVerifier::Probe(const IndeterminatePromise& promise, Deadline deadline) {
  if (!probe_indeterminate_) return {IndeterminateCheck::kUnknown};
  const KeyRead read = read_(promise.key, deadline);
  switch (read.status) {
    case KeyRead::kFound: return {IndeterminateCheck::kCommitted};
    case KeyRead::kNotFound: return {IndeterminateCheck::kNotCommitted};
    case KeyRead::kError: break;
  }
  return {IndeterminateCheck::kUnknown};
}

std::chrono::milliseconds TimeLeft(ReadBackVerifier::Deadline deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::system_clock::now());
  return std::max(left, std::chrono::milliseconds(1));
}

}  // namespace aftershock::ledger
