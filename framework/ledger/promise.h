// Promise and IndeterminatePromise: what the service said it did, as the ledger keeps it.
//
// A Promise is an acknowledged outcome the service must keep for ever. Its kind says what it asserts
// and so which properties verification checks:
//   kIssued  (the pseudonym's): the service issued `value` for `key`, e.g. Create("alice") answered
//            "p-17": reverse lookup (P3: Get("p-17") returns "alice") and re-issue stability (P2:
//            Create("alice") again answers "p-17").
//   kWritten (a key-value store's): the service acknowledged writing `value` under `key`: read-back
//            (P3: Get(key) returns value). Nothing is re-issued, so P2 does not apply.
// A promise may carry attributes the workload recorded with it (which shard, replica or node
// acknowledged it): the report breaks lost promises down by them. A promise without attributes
// holds one null pointer for them (ledgers keep 100,000s of promises), one with attributes a small
// sorted vector.
// An IndeterminatePromise is a call whose outcome the client never learned (deadline
// exceeded, UNAVAILABLE after retries): it may or may not have committed, so it is never counted lost.
//
//   Promise p{.key = "alice", .value = "p-17", .unix_ms = clock.UnixMs(Clock::now())};   // kIssued
//   Promise w{.key = "k-1", .value = "v-1", .unix_ms = now_ms, .kind = PromiseKind::kWritten,
//             .attributes = {{"shard", "2"}}};
//   IndeterminatePromise q{.key = "bob", .unix_ms = p.unix_ms, .code = kCodeDeadlineExceeded};
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_PROMISE_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_PROMISE_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/common/call_code.h"

namespace aftershock::ledger {

enum class PromiseKind { kIssued, kWritten };
// "issued" / "written".
constexpr std::string_view PromiseKindName(PromiseKind kind) {
  return kind == PromiseKind::kIssued ? "issued" : "written";
}

// Whether `name` can name an attribute: [a-z0-9._-]+ (it becomes a CSV column and a file token).
bool ValidAttributeName(std::string_view name);

// name -> value pairs, sorted by name, names unique and valid. Empty: a null pointer, no allocation.
// Copies are deep (a promise is copied into the verification sample; sharing buys nothing there).
class PromiseAttributes {
 public:
  using Item = std::pair<std::string, std::string>;

  PromiseAttributes() = default;
  // Throws std::invalid_argument naming the attribute for an invalid or repeated name.
  PromiseAttributes(std::initializer_list<Item> items);
  PromiseAttributes(const PromiseAttributes& other);
  PromiseAttributes& operator=(const PromiseAttributes& other);
  PromiseAttributes(PromiseAttributes&&) noexcept = default;
  PromiseAttributes& operator=(PromiseAttributes&&) noexcept = default;
  ~PromiseAttributes() = default;

  // Sets (or replaces) `name`; throws std::invalid_argument when the name is not [a-z0-9._-]+.
  void Set(std::string name, std::string value);
  // The value of `name`, or nullopt.
  std::optional<std::string_view> Get(std::string_view name) const;

  bool empty() const { return items_ == nullptr; }
  std::size_t size() const { return items_ ? items_->size() : 0; }
  // In name order; an empty range when there are none.
  const Item* begin() const { return items_ ? items_->data() : nullptr; }
  const Item* end() const { return items_ ? items_->data() + items_->size() : nullptr; }

  friend bool operator==(const PromiseAttributes& a, const PromiseAttributes& b);

 private:
  std::unique_ptr<std::vector<Item>> items_;
};

struct Promise {
  std::string key;
  std::string value;
  std::int64_t unix_ms = 0;  // when the acknowledgement arrived (wall clock, RunClock::UnixMs)
  PromiseKind kind = PromiseKind::kIssued;
  PromiseAttributes attributes{};  // what the workload recorded with it (usually none)

  friend bool operator==(const Promise&, const Promise&) = default;
};

// The promises of a run as verification sees them: for each key only the last acknowledged value (by
// acknowledgement time, then recording order), so a key the target overwrote is judged on what it
// holds now; the earlier values of that key are superseded, and counted. Sorted by (unix_ms, key).
// The in-run ledger (PromiseLedger::Sample) and aftershock-verify (the ledger file) both go through
// VerifyLedger, which applies this, so the same run gives one verdict either way.
//
//   LatestPromises latest = LatestPerKey(file.promises);   // latest.superseded: earlier writes
struct LatestPromises {
  std::vector<Promise> promises;
  std::size_t superseded = 0;
};
LatestPromises LatestPerKey(std::vector<Promise> promises);

struct IndeterminatePromise {
  std::string key;
  std::int64_t unix_ms = 0;
  CallCode code = kCodeUnknown;  // the last code the client saw

  friend bool operator==(const IndeterminatePromise&, const IndeterminatePromise&) = default;
};

}  // namespace aftershock::ledger

#endif  // AFTERSHOCK_FRAMEWORK_LEDGER_PROMISE_H_
