// PromiseLedger: the record of what the service acknowledged during a run, kept for verification.
//
// Every acknowledged promise is counted; the ledger keeps all of them while there are at most
// `capacity` (default 1,000,000: an hour at 200/s is 720,000, so the seed's longest runs are
// verified exhaustively), then a uniform Algorithm R reservoir of `capacity` (seeded, so a run is
// repeatable). Promises made near a fault are the ones most likely to be lost, so every promise made
// within `fault_window_ms` before a fault's actual apply until `fault_window_ms` after its actual
// end is pinned on top of the reservoir (up to `fault_capacity`; what does not fit is counted in
// fault_overflow, never hidden). The scenario driver opens and closes those spans from the chaos
// timeline as faults are really applied and reverted (OpenFault / CloseFault), not from the plan.
// Indeterminate calls (outcome unknown) are kept apart: they are never counted as lost.
// With a LedgerStream attached, every record is also appended to the ledger file as it arrives.
// Promises with attributes (promise.h) are also counted per attribute value.
//
// Thread-safe; meant to be called from many completion threads. The critical section is a few
// pointer moves, one random draw and, for a promise a full reservoir takes, one copy (so that once
// the reservoir and the recent ring are full, the ledger's memory stays flat).
//
//   PromiseLedger ledger(LedgerOptions{.capacity = 2000, .seed = 7});
//   ledger.RecordAcknowledged({.key = "alice", .value = "p-17", .unix_ms = now_ms});
//   std::uint64_t span = ledger.OpenFault(apply_ms);   // when the fault is applied
//   ledger.CloseFault(span, revert_ms);                 // when it is reverted
//   std::vector<Promise> to_check = ledger.Sample();
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_PROMISE_LEDGER_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_PROMISE_LEDGER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/ledger/ledger_stream.h"
#include "framework/ledger/promise.h"

namespace aftershock::ledger {

inline constexpr std::size_t kDefaultLedgerCapacity = 1'000'000;
// Distinct values told apart per attribute name in AcknowledgedByAttribute; further values are
// counted together under kOtherAttributeValue (an attribute such as a request id is not a breakdown).
inline constexpr std::size_t kMaxAttributeValues = 256;
inline constexpr std::string_view kOtherAttributeValue = "(other)";

// Acknowledged promises per attribute: name -> value -> count.
using AttributeCounts = std::map<std::string, std::map<std::string, std::uint64_t, std::less<>>, std::less<>>;

struct LedgerOptions {
  std::size_t capacity = kDefaultLedgerCapacity;  // reservoir size (exhaustive up to this many promises)
  std::uint64_t seed = 1;                         // reservoir random seed
  std::int64_t fault_window_ms = 5000;            // promises this close to a fault are pinned
  std::size_t fault_capacity = kDefaultLedgerCapacity;  // at most this many pinned (also the recent ring)
  std::size_t indeterminate_capacity = 100'000;
};

struct LedgerCounters {
  std::uint64_t acknowledged = 0;           // every RecordAcknowledged call
  std::uint64_t reservoir_dropped = 0;      // acknowledged minus what the reservoir holds
  std::uint64_t pinned = 0;                 // near-fault promises kept
  std::uint64_t fault_overflow = 0;         // near-fault promises that could not be kept
  std::uint64_t faults_marked = 0;
  std::uint64_t indeterminate = 0;          // every RecordIndeterminate call
  std::uint64_t indeterminate_dropped = 0;  // beyond indeterminate_capacity (never verified)
};

class PromiseLedger {
 public:
  explicit PromiseLedger(LedgerOptions options = {});
  PromiseLedger(const PromiseLedger&) = delete;
  PromiseLedger& operator=(const PromiseLedger&) = delete;

  void RecordAcknowledged(Promise promise);
  void RecordIndeterminate(IndeterminatePromise promise);

  // Every record from now on is also appended to `stream` (records before the call are not).
  void AttachStream(std::shared_ptr<LedgerStream> stream);
  // Closes the attached stream (its end line); throws LedgerFileError when writing failed.
  void CloseStream();

  // A fault span that is open until CloseFault: pins promises from begin - window on, now (those
  // still in the ring of recent promises) and later. Returns the span's id.
  std::uint64_t OpenFault(std::int64_t begin_unix_ms);
  // Ends span `id` at end + window (a later end extends it again; an unknown id is ignored).
  void CloseFault(std::uint64_t id, std::int64_t end_unix_ms);

  // Pins every promise with unix_ms in [begin - window, end + window]: those still in the ring of
  // recent promises now, and those recorded later. Call it when the fault begins (end may be the
  // planned end); promises that already left the ring (older than the newest minus the window, or
  // pushed out because the ring holds only fault_capacity) are counted in fault_overflow when the
  // ring evicted them for size, and are otherwise only as likely to be checked as any other.
  void MarkFault(std::int64_t begin_unix_ms, std::int64_t end_unix_ms);

  std::uint64_t acknowledged() const;
  // Reservoir plus pinned promises, each record once, sorted by (unix_ms, key); a key acknowledged
  // more than once keeps every value (VerifyLedger judges the last: LatestPerKey, promise.h).
  std::vector<Promise> Sample() const;
  // The first indeterminate_capacity indeterminate calls, in recording order.
  std::vector<IndeterminatePromise> Indeterminate() const;
  LedgerCounters Counters() const;
  // Every acknowledged promise with attributes, counted per attribute value (all of them, not the
  // sample): the denominators of the report's "lost by attribute" table.
  AttributeCounts AcknowledgedByAttribute() const;
  const LedgerOptions& options() const { return options_; }

 private:
  using Entry = std::shared_ptr<const Promise>;
  struct RingEntry {
    Entry promise;
    bool handled = false;  // pinned, or counted as fault overflow: never counted twice
  };
  struct Span {
    std::int64_t lo = 0;
    std::int64_t hi = 0;
    std::uint64_t id = 0;
  };
  void AddSpanLocked(Span span);

  bool InFaultSpanLocked(std::int64_t unix_ms) const;
  // Pins `entry`, or counts it as overflow when fault_capacity is full.
  void PinLocked(const Entry& entry);
  void PruneLocked(Entry& spill);

  const LedgerOptions options_;

  mutable std::mutex mu_;
  std::uint64_t acknowledged_ = 0;
  std::int64_t newest_ms_ = 0;
  bool any_ = false;
  std::mt19937_64 rng_;
  std::vector<Entry> reservoir_;
  std::vector<Entry> pinned_;
  std::uint64_t fault_overflow_ = 0;
  std::uint64_t faults_marked_ = 0;
  std::vector<Span> spans_;
  std::uint64_t next_span_id_ = 1;
  std::shared_ptr<LedgerStream> stream_;  // set before the run; appended to outside mu_
  AttributeCounts by_attribute_;
  std::deque<RingEntry> ring_;
  // Unpinned promises the ring pushed out for size while still inside the window: (unix_ms, count).
  std::deque<std::pair<std::int64_t, std::uint64_t>> evicted_;

  mutable std::mutex indeterminate_mu_;
  std::uint64_t indeterminate_total_ = 0;
  std::vector<IndeterminatePromise> indeterminate_;
};

}  // namespace aftershock::ledger

#endif  // AFTERSHOCK_FRAMEWORK_LEDGER_PROMISE_LEDGER_H_
