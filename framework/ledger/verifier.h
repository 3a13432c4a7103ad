// Promise verification: replays the ledger against the service after the run has settled.
//
// A PromiseVerifier is written once per service. For each promise it reads before it writes:
// first the reverse lookup or read-back (P3, e.g. Get(pseudonym) must return the original key, or
// for a written promise Get(key) must return the value), then the re-issue (P2, e.g.
// Create(original) must return the identical pseudonym), so the re-issue cannot repair what the read
// is checking. A check says per property whether it held, broke, failed with an error, or was not
// checked at all (kNotChecked: a key-value store re-issues nothing); the report counts the promises
// each property was decided for (p2_decided, p3_decided), so a gate with nothing to check can say
// "not applicable" rather than PASS. Ready verifiers: ReadThenReissueVerifier (reverse lookup and
// re-issue) and ReadBackVerifier (key -> value read-back). VerifyLedger runs those checks on a bounded pool of threads,
// each call with its own deadline, and stops starting new checks once the overall deadline passes.
//
// Verification must decide. A check that ends in a transient error (by default UNAVAILABLE,
// DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, NOT_SENT) is retried with back-off while the overall deadline
// allows; what stays undecided (an error, or never started) is counted by its code, and the
// `verification-decided` gate turns red when undecided promises exceed the scenario's
// max_undecided_ratio (default 0). An error is never a violation, and never a pass either.
//
//   class PseudonymVerifier : public PromiseVerifier { ... };
//   PseudonymVerifier verifier(channel);
//   VerificationReport report = VerifyLedger(ledger.Sample(), ledger.Indeterminate(), verifier, {});
//   EXPECT_EQ(report.p2_violations + report.p3_violations, 0u);
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_VERIFIER_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_VERIFIER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/ledger/promise.h"

namespace aftershock::ledger {

struct PromiseCheck {
  // P3, reverse lookup (issued promises): reading the value back must yield the key.
  enum class Lookup { kHeld, kNotFound, kWrongKey, kError, kNotChecked };
  // P2: re-issuing the key must yield the identical value.
  enum class Stability { kHeld, kChanged, kError, kNotChecked };
  // P3, read-back (written promises): reading the key must yield the value.
  enum class ReadBack { kNotChecked, kHeld, kNotFound, kWrongValue, kError };

  // Defaults: a verifier of issued promises must set lookup and stability (kError until it does).
  Lookup lookup = Lookup::kError;
  Stability stability = Stability::kError;
  std::string observed_key;    // what the reverse lookup returned (when kWrongKey)
  std::string observed_value;  // what the re-issue returned (when kChanged)
  std::string error;           // transport error text (when kError)
  // The call code of the error (when kError): decides retrying and is how the report counts
  // undecided promises. kCodeUnknown when the verifier did not say.
  CallCode error_code = kCodeUnknown;
  // Last, so positional initialisers of the fields above keep working.
  ReadBack read_back = ReadBack::kNotChecked;
  std::string observed_read;   // what the read-back returned (when kWrongValue)
  // P2's only evidence: what re-issuing the key returned (SetReissued). VerifyLedger decides
  // stability from it (held when equal to the promise's value, changed otherwise); a check that says
  // kHeld or kChanged without it is not a P2 decision (the verifier re-issued nothing), so a verifier
  // without a re-issue gets P2 "not applicable", never a PASS. kError stays an undecided re-issue.
  std::optional<std::string> reissued{};

  // Records the re-issue's answer and the stability it shows for `promise`.
  void SetReissued(const Promise& promise, std::string value) {
    stability = value == promise.value ? Stability::kHeld : Stability::kChanged;
    observed_value = value;
    reissued = std::move(value);
  }
};

struct IndeterminateCheck {
  enum Result { kCommitted, kNotCommitted, kUnknown };
  Result result = kUnknown;
};

class PromiseVerifier {
 public:
  virtual ~PromiseVerifier();
  // Called concurrently from up to VerifyOptions::concurrency threads. Each network call made here
  // must honour `deadline`. Exceptions are caught and counted as errors.
  virtual PromiseCheck Check(const Promise& promise, std::chrono::system_clock::time_point deadline) = 0;
  // Whether an indeterminate call did commit (e.g. a read of its key). Default: unknown.
  virtual IndeterminateCheck Probe(const IndeterminatePromise& promise,
                                   std::chrono::system_clock::time_point deadline);
};

struct VerifyOptions {
  int concurrency = 16;
  std::chrono::milliseconds call_deadline{5000};
  std::chrono::milliseconds overall_deadline{120000};
  // A check whose error has one of these codes is tried again (back-off from retry_backoff_initial,
  // doubling up to retry_backoff_max) while the overall deadline allows.
  // kCodeNotSent: the read never left the client (a refused connection), always safe to repeat.
  std::vector<CallCode> retry_codes{kCodeUnavailable, kCodeDeadlineExceeded, 8 /*RESOURCE_EXHAUSTED*/,
                                    10 /*ABORTED*/, kCodeNotSent};
  std::chrono::milliseconds retry_backoff_initial{100};
  std::chrono::milliseconds retry_backoff_max{2000};
};

struct Violation {
  // P3 covers both the reverse lookup (issued promises) and the read-back (written promises);
  // promise_kind tells them apart.
  enum class Property { kP2Stability, kP3ReverseLookup };
  enum class Kind { kChanged, kNotFound, kWrongKey, kWrongValue };

  std::string key;
  std::string expected;  // P2 and read-back: the acknowledged value; reverse lookup: the key
  std::string observed;  // P2: the re-issued value; reverse lookup: the key read back; read-back: the
                         // value read back (empty for kNotFound)
  std::string value;     // the acknowledged value
  std::int64_t unix_ms = 0;
  Property property = Property::kP2Stability;
  Kind kind = Kind::kChanged;
  PromiseKind promise_kind = PromiseKind::kIssued;
  PromiseAttributes attributes{};  // the promise's (promise.h)
};

std::string_view PropertyName(Violation::Property property);  // "P2" / "P3"
std::string_view KindName(Violation::Kind kind);  // "changed" / "NotFound" / "wrong key" / "wrong value"
// e.g. "P3 NotFound: key 'alice' value 'p-17'", "P2 changed: key 'alice' value 'p-17' expected 'p-17'
// observed 'p-18'", "P3 read-back: key 'k' expected 'v' observed 'w'" or "P3 read-back NotFound: key
// 'k' expected 'v'"; the promise's attributes follow in parentheses: "... (shard=2, node=a)".
std::string DescribeViolation(const Violation& violation);

struct VerificationReport {
  std::size_t sample_size = 0;  // promises verified: the last acknowledged value of each key
  // Earlier values of a key acknowledged again later (LatestPerKey): superseded, not verified.
  std::size_t superseded = 0;
  // checked + errors + unverified == sample_size.
  std::size_t checked = 0;     // every property the verifier checked was decided
  std::size_t p2_violations = 0;
  std::size_t p3_violations = 0;
  std::size_t errors = 0;      // at least one property undecided (error, exception, or nothing checked)
  std::size_t unverified = 0;  // not started before the overall deadline
  std::vector<Violation> violations;  // in sample order; a promise can break both properties
  std::vector<std::string> error_samples;  // the first few error texts, for the report
  std::size_t retries = 0;                 // checks tried again after a transient error
  // Promises each property was decided for; 0 when the verifier does not check that property
  // (its gate then says "not applicable").
  std::size_t p2_decided = 0;  // re-issue stability (P2)
  // Checks that claimed a stability verdict without a re-issue's answer (PromiseCheck::reissued):
  // not counted as P2 decisions.
  std::size_t stability_without_reissue = 0;
  std::size_t p3_decided = 0;  // reverse lookup or read-back (P3)
  // Undecided promises (errors + unverified) by the code that left them undecided: a call code name
  // ("UNAVAILABLE", "INTERNAL"), "exception", "nothing checked" (the verifier's check set every
  // property to kNotChecked), or "not started" for those past the overall deadline.
  std::map<std::string, std::size_t> undecided_by_code;
  std::size_t undecided() const { return errors + unverified; }
  std::size_t indeterminate_total = 0;
  std::size_t indeterminate_committed = 0;
  std::size_t indeterminate_not_committed = 0;
  std::size_t indeterminate_unknown = 0;  // includes probes not started before the overall deadline
};

VerificationReport VerifyLedger(const std::vector<Promise>& sample,
                                const std::vector<IndeterminatePromise>& indeterminate,
                                PromiseVerifier& verifier, VerifyOptions options = {});

}  // namespace aftershock::ledger

#endif  // AFTERSHOCK_FRAMEWORK_LEDGER_VERIFIER_H_
