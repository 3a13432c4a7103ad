#include "suite/notes_target.h"

#include <chrono>
#include <utility>

#include "framework/common/call_code.h"
#include "framework/ledger/read_back_verifier.h"
#include "framework/load/blocking_workload.h"
#include "framework/load/http_workload.h"

namespace consumer {
namespace {

namespace as = aftershock;

// The code of a reply of the team's client (docs/call-codes.md): the HTTP status, or where the call
// failed without one.
as::CallCode ReplyCode(const NotesReply& r) {
  if (r.status != 0) return r.status;
  if (!r.sent) return as::ClientFailureCode(as::ClientFailure::kBeforeSend);
  return as::ClientFailureCode(r.timed_out ? as::ClientFailure::kTimedOut : as::ClientFailure::kAfterSend);
}

}  // namespace

NotesTarget::NotesTarget(std::string address, NotesTargetOptions options)
    : address_(std::move(address)),
      options_(options),
      client_(address_),
      run_id_(std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000000)) {}

std::string NotesTarget::KeyOf(std::uint64_t sequence) const {
  return "note-" + run_id_ + "-" + std::to_string(sequence);
}
std::string NotesTarget::ValueOf(std::uint64_t sequence) { return "value-" + std::to_string(sequence); }

std::unique_ptr<as::load::Workload> NotesTarget::MakeWorkload(as::ledger::PromiseLedger& ledger,
                                                             const as::RunClock& clock) {
  as::load::BlockingWorkloadOptions o;
  // One blocking PUT per attempt, with what is left of the call's deadline as the client's timeout.
  o.call = [this](const as::load::BlockingCallContext& c) {
    const NotesReply reply = client_.Put(KeyOf(c.sequence), ValueOf(c.sequence), c.timeout);
    return as::load::BlockingCallResult{ReplyCode(reply), reply.error};
  };
  o.workers = options_.workers;
  o.queue_capacity = options_.queue_capacity;
  // The promise: an acknowledged PUT must read back. A PUT that may or may not have landed is
  // indeterminate (probed, never counted as lost).
  o.on_final = [this, &ledger, clock](const as::load::BlockingCallContext& c, const as::load::BlockingCallResult&,
                                      const as::load::FinalOutcome& outcome) {
    if (outcome.ok) {
      ledger.RecordAcknowledged({KeyOf(c.sequence), ValueOf(c.sequence), clock.UnixMs(outcome.completed),
                                 as::ledger::PromiseKind::kWritten});
    } else if (outcome.indeterminate) {
      ledger.RecordIndeterminate({KeyOf(c.sequence), clock.UnixMs(outcome.completed), outcome.code});
    }
  };
  o.idempotency = as::load::Idempotency::kIdempotent;
  return std::make_unique<as::load::BlockingWorkload>(std::move(o));
}

std::unique_ptr<as::ledger::PromiseVerifier> NotesTarget::MakeVerifier() {
  return std::make_unique<as::ledger::ReadBackVerifier>(
      [this](const std::string& key, as::ledger::ReadBackVerifier::Deadline deadline) {
        const NotesReply r = client_.Get(key, as::ledger::TimeLeft(deadline));
        if (r.status == 200) return as::ledger::KeyRead::Found(r.body);
        if (r.status == 404) return as::ledger::KeyRead::NotFound();
        // A read is safe to repeat: nothing sent or a 503 is UNAVAILABLE, which the verifier retries.
        as::CallCode code = ReplyCode(r);
        if (code == as::kCodeNotSent || code == 503) code = as::kCodeUnavailable;
        return as::ledger::KeyRead::Error(code, r.status != 0 ? "GET answered " + std::to_string(r.status) : r.error);
      });
}

// 2xx is success (the PUT answers 204); nothing is retried by default.
as::load::OutcomePolicy NotesTarget::Policy() const { return as::load::HttpOutcomePolicy(); }

as::ledger::LedgerHeader NotesTarget::Identity() const {
  return {{"target.kind", "greeting-notes"}, {"target.addresses", address_}, {"target.run_id", run_id_}};
}

}  // namespace consumer
