// Promise verification: replays the ledger against the service after the run has settled.
//
// A PromiseVerifier is written once per service. For each promise it reads before it writes:
// first the read-back (P3, e.g. Get(pseudonym) must return the original key), then the re-issue
// (P2, e.g. Create(original) must return the identical pseudonym), so the re-issue cannot repair
// what the read-back is checking. VerifyLedger runs those checks on a bounded pool of threads,
// each call with its own deadline, and stops starting new checks once the overall deadline passes.
//
// Verification must decide. A check that ends in a transient error (by default UNAVAILABLE,
// DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED) is retried with back-off while the overall deadline
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
#include <string>
#include <string_view>
#include <vector>

#include "framework/ledger/promise.h"

namespace aftershock::ledger {

struct PromiseCheck {
  // P3: reading the value back must yield the key.
  enum class Lookup { kHeld, kNotFound, kWrongKey, kError };
  // P2: re-issuing the key must yield the identical value.
  enum class Stability { kHeld, kChanged, kError };

  Lookup lookup = Lookup::kError;
  Stability stability = Stability::kError;
  std::string observed_key;    // what the read-back returned (when kWrongKey)
  std::string observed_value;  // what the re-issue returned (when kChanged)
  std::string error;           // transport error text (when kError)
  // The call code of the error (when kError): decides retrying and is how the report counts
  // undecided promises. kCodeUnknown when the verifier did not say.
  CallCode error_code = kCodeUnknown;
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
  std::vector<CallCode> retry_codes{kCodeUnavailable, kCodeDeadlineExceeded, 8 /*RESOURCE_EXHAUSTED*/,
                                    10 /*ABORTED*/};
  std::chrono::milliseconds retry_backoff_initial{100};
  std::chrono::milliseconds retry_backoff_max{2000};
};

struct Violation {
  enum class Property { kP2Stability, kP3ReverseLookup };
  enum class Kind { kChanged, kNotFound, kWrongKey };

  std::string key;
  std::string expected;  // P2: the acknowledged value; P3: the key the read-back should return
  std::string observed;  // P2: the re-issued value; P3: the key read back (empty for kNotFound)
  std::string value;     // the acknowledged value (what P3 looked up)
  std::int64_t unix_ms = 0;
  Property property = Property::kP2Stability;
  Kind kind = Kind::kChanged;
};

std::string_view PropertyName(Violation::Property property);  // "P2" / "P3"
std::string_view KindName(Violation::Kind kind);              // "changed" / "NotFound" / "wrong key"
// e.g. "P3 NotFound: key 'alice' value 'p-17'" or "P2 changed: key 'alice' expected 'p-17' observed 'p-18'".
std::string DescribeViolation(const Violation& violation);

struct VerificationReport {
  std::size_t sample_size = 0;
  // checked + errors + unverified == sample_size.
  std::size_t checked = 0;     // both properties decided
  std::size_t p2_violations = 0;
  std::size_t p3_violations = 0;
  // Promises each property was decided for; 0 when the verifier does not check that property
  // (its gate then says "not applicable").
  std::size_t p2_decided = 0;  // re-issue stability (P2)
  std::size_t p3_decided = 0;  // reverse lookup or read-back (P3)
  std::size_t errors = 0;      // at least one property undecided (transport error or exception)
  std::size_t unverified = 0;  // not started before the overall deadline
  std::vector<Violation> violations;  // in sample order; a promise can break both properties
  std::vector<std::string> error_samples;  // the first few error texts, for the report
  std::size_t retries = 0;                 // checks tried again after a transient error
  // Undecided promises (errors + unverified) by the code that left them undecided: a call code name
  // ("UNAVAILABLE", "INTERNAL"), "exception", or "not started" for those past the overall deadline.
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
