#include "framework/ledger/promise_ledger.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_set>

namespace aftershock::ledger {
namespace {

// Fault spans whose end lies this far behind the newest promise can no longer match a new one
// (completions arrive at most a call deadline late), so they are dropped to keep the scan short.
constexpr std::int64_t kSpanRetentionMs = 60'000;
constexpr std::size_t kMaxSpans = 1024;

}  // namespace

PromiseLedger::PromiseLedger(LedgerOptions options) : options_(options), rng_(options.seed) {
  reservoir_.reserve(std::min<std::size_t>(options_.capacity, 1 << 16));
}

bool PromiseLedger::InFaultSpanLocked(std::int64_t unix_ms) const {
  for (const Span& span : spans_) {
    if (unix_ms >= span.lo && unix_ms <= span.hi) return true;
  }
  return false;
}

void PromiseLedger::PinLocked(const Entry& entry) {
  if (pinned_.size() < options_.fault_capacity) {
    pinned_.push_back(entry);
  } else {
    ++fault_overflow_;
  }
}

void PromiseLedger::PruneLocked(Entry& spill) {
  const std::int64_t horizon = newest_ms_ - options_.fault_window_ms;
  while (!ring_.empty()) {
    RingEntry& front = ring_.front();
    const bool over_size = ring_.size() > options_.fault_capacity;
    if (!over_size && front.promise->unix_ms >= horizon) break;
    if (over_size && !front.handled && front.promise->unix_ms >= horizon) {
      // Still inside the window: a fault marked soon would have wanted it. Remember that it existed.
      const std::int64_t ms = front.promise->unix_ms;
      if (!evicted_.empty() && evicted_.back().first == ms) {
        ++evicted_.back().second;
      } else {
        evicted_.emplace_back(ms, 1);
      }
    }
    if (!spill) {
      spill = std::move(front.promise);  // released outside the lock
    }
    ring_.pop_front();
  }
  const std::size_t max_runs = static_cast<std::size_t>(std::max<std::int64_t>(options_.fault_window_ms, 0)) * 2 + 64;
  while (!evicted_.empty() && (evicted_.front().first < horizon || evicted_.size() > max_runs)) {
    evicted_.pop_front();
  }
}

void PromiseLedger::AttachStream(std::shared_ptr<LedgerStream> stream) {
  std::lock_guard<std::mutex> lock(mu_);
  stream_ = std::move(stream);
}

void PromiseLedger::CloseStream() {
  std::shared_ptr<LedgerStream> stream;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stream = stream_;
  }
  if (stream) stream->Close();
}

void PromiseLedger::RecordAcknowledged(Promise promise) {
  const std::int64_t ms = promise.unix_ms;
  std::shared_ptr<LedgerStream> stream;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stream = stream_;
  }
  if (stream) stream->Append(promise);
  Entry entry = std::make_shared<const Promise>(std::move(promise));
  Entry spill_reservoir;
  Entry spill_ring;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++acknowledged_;
    for (const auto& [name, value] : entry->attributes) {
      auto& values = by_attribute_[name];
      auto it = values.find(value);
      if (it == values.end() && values.size() >= kMaxAttributeValues) it = values.try_emplace(std::string(kOtherAttributeValue)).first;
      if (it == values.end()) it = values.emplace(value, 0).first;
      ++it->second;
    }
    newest_ms_ = any_ ? std::max(newest_ms_, ms) : ms;
    any_ = true;
    // Once full, the reservoir takes a copy of its own rather than sharing the ring's promise. Shared,
    // a recent promise the reservoir also holds is stored once, and as that share (capacity / n)
    // falls the ledger's memory would keep creeping toward capacity + ring long after both are
    // full; unshared, it is capacity + ring one fault window after the reservoir filled, and stays
    // there. Only capacity / n of the promises are copied; while the ledger is exhaustive (the
    // filling phase) the two share, so an exhaustive ledger holds each promise once.
    if (reservoir_.size() < options_.capacity) {
      reservoir_.push_back(entry);
    } else if (options_.capacity > 0) {
      std::uniform_int_distribution<std::uint64_t> pick(0, acknowledged_ - 1);
      const std::uint64_t j = pick(rng_);
      if (j < options_.capacity) spill_reservoir = std::exchange(reservoir_[j], std::make_shared<const Promise>(*entry));
    }
    bool handled = false;
    if (!spans_.empty() && InFaultSpanLocked(ms)) {
      PinLocked(entry);
      handled = true;
    }
    ring_.push_back(RingEntry{std::move(entry), handled});
    PruneLocked(spill_ring);
  }
}

void PromiseLedger::RecordIndeterminate(IndeterminatePromise promise) {
  std::shared_ptr<LedgerStream> stream;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stream = stream_;
  }
  if (stream) stream->Append(promise);
  std::lock_guard<std::mutex> lock(indeterminate_mu_);
  ++indeterminate_total_;
  if (indeterminate_.size() < options_.indeterminate_capacity) indeterminate_.push_back(std::move(promise));
}

void PromiseLedger::MarkFault(std::int64_t begin_unix_ms, std::int64_t end_unix_ms) {
  const std::int64_t end = std::max(begin_unix_ms, end_unix_ms);
  std::lock_guard<std::mutex> lock(mu_);
  AddSpanLocked(Span{begin_unix_ms - options_.fault_window_ms, end + options_.fault_window_ms, next_span_id_++});
}

std::uint64_t PromiseLedger::OpenFault(std::int64_t begin_unix_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::uint64_t id = next_span_id_++;
  AddSpanLocked(Span{begin_unix_ms - options_.fault_window_ms, std::numeric_limits<std::int64_t>::max(), id});
  return id;
}

void PromiseLedger::CloseFault(std::uint64_t id, std::int64_t end_unix_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Span& span : spans_) {
    if (span.id != id) continue;
    const std::int64_t hi = std::max(end_unix_ms, span.lo + options_.fault_window_ms) + options_.fault_window_ms;
    // An open span closes; a closed one only grows (a later confirmation extends it).
    span.hi = span.hi == std::numeric_limits<std::int64_t>::max() ? hi : std::max(span.hi, hi);
    return;
  }
}

void PromiseLedger::AddSpanLocked(Span span) {
  ++faults_marked_;
  for (RingEntry& entry : ring_) {
    const std::int64_t ms = entry.promise->unix_ms;
    if (!entry.handled && ms >= span.lo && ms <= span.hi) {
      PinLocked(entry.promise);
      entry.handled = true;
    }
  }
  for (auto& [ms, count] : evicted_) {
    if (ms >= span.lo && ms <= span.hi) {
      fault_overflow_ += count;
      count = 0;
    }
  }
  std::erase_if(spans_, [this](const Span& s) { return s.hi < newest_ms_ - kSpanRetentionMs; });
  if (spans_.size() >= kMaxSpans) spans_.erase(spans_.begin());
  spans_.push_back(span);
}

std::uint64_t PromiseLedger::acknowledged() const {
  std::lock_guard<std::mutex> lock(mu_);
  return acknowledged_;
}

std::vector<Promise> PromiseLedger::Sample() const {
  std::vector<Entry> entries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    entries.reserve(reservoir_.size() + pinned_.size());
    entries.insert(entries.end(), reservoir_.begin(), reservoir_.end());
    entries.insert(entries.end(), pinned_.begin(), pinned_.end());
  }
  // A promise both sampled and pinned is one promise (the reservoir may hold its own copy): equal
  // records once. A key acknowledged again keeps every value here; VerifyLedger judges the last
  // (LatestPerKey) and counts the earlier ones superseded, as aftershock-verify does from the file.
  std::vector<Promise> out;
  out.reserve(entries.size());
  for (const Entry& e : entries) out.push_back(*e);
  std::stable_sort(out.begin(), out.end(), [](const Promise& a, const Promise& b) {
    return a.unix_ms != b.unix_ms ? a.unix_ms < b.unix_ms : a.key < b.key;
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<IndeterminatePromise> PromiseLedger::Indeterminate() const {
  std::lock_guard<std::mutex> lock(indeterminate_mu_);
  return indeterminate_;
}

LedgerCounters PromiseLedger::Counters() const {
  LedgerCounters c;
  {
    std::lock_guard<std::mutex> lock(mu_);
    c.acknowledged = acknowledged_;
    c.reservoir_dropped = acknowledged_ - reservoir_.size();
    c.pinned = pinned_.size();
    c.fault_overflow = fault_overflow_;
    c.faults_marked = faults_marked_;
  }
  std::lock_guard<std::mutex> lock(indeterminate_mu_);
  c.indeterminate = indeterminate_total_;
  c.indeterminate_dropped = indeterminate_total_ - indeterminate_.size();
  return c;
}

AttributeCounts PromiseLedger::AcknowledgedByAttribute() const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_attribute_;
}

}  // namespace aftershock::ledger
