#include "framework/ledger/verifier.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "framework/ledger/ledger_file.h"
#include "framework/ledger/ledger_stream.h"
#include "framework/ledger/promise_ledger.h"
#include "gtest/gtest.h"

namespace aftershock::ledger {
namespace {

using std::chrono::milliseconds;

PromiseCheck HeldCheck(const Promise& p) {
  PromiseCheck c;
  c.lookup = PromiseCheck::Lookup::kHeld;
  c.SetReissued(p, p.value);
  return c;
}

// An in-memory service: forward (key -> value, what a re-issue returns) and reverse (value -> key,
// what a read-back returns), seeded with whatever defects a test needs.
class FakeVerifier : public PromiseVerifier {
 public:
  std::map<std::string, std::string> forward;
  std::map<std::string, std::string> reverse;
  std::map<std::string, std::string> error_for_key;  // key -> transport error text
  std::map<std::string, CallCode> code_for_key;       // key -> the error's code (default UNKNOWN)
  std::map<std::string, int> transient_for_key;       // key -> UNAVAILABLE this many times, then fine
  std::string throw_for_key;
  std::mutex mu;

  PromiseCheck Check(const Promise& p, std::chrono::system_clock::time_point) override {
    if (p.key == throw_for_key) throw std::runtime_error("boom");
    PromiseCheck c;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (auto t = transient_for_key.find(p.key); t != transient_for_key.end() && t->second > 0) {
        --t->second;
        c.error = "UNAVAILABLE: try again";
        c.error_code = kCodeUnavailable;
        return c;
      }
    }
    if (auto e = error_for_key.find(p.key); e != error_for_key.end()) {
      c.lookup = PromiseCheck::Lookup::kError;
      c.stability = PromiseCheck::Stability::kError;
      c.error = e->second;
      if (auto code = code_for_key.find(p.key); code != code_for_key.end()) c.error_code = code->second;
      return c;
    }
    auto r = reverse.find(p.value);
    if (r == reverse.end()) {
      c.lookup = PromiseCheck::Lookup::kNotFound;
    } else {
      c.observed_key = r->second;
      c.lookup = r->second == p.key ? PromiseCheck::Lookup::kHeld : PromiseCheck::Lookup::kWrongKey;
    }
    c.SetReissued(p, forward.at(p.key));
    return c;
  }

  IndeterminateCheck Probe(const IndeterminatePromise& p, std::chrono::system_clock::time_point) override {
    if (p.key == throw_for_key) throw std::runtime_error("boom");
    return {forward.count(p.key) ? IndeterminateCheck::kCommitted : IndeterminateCheck::kNotCommitted};
  }

  void Keep(const std::string& key, const std::string& value) {
    forward[key] = value;
    reverse[value] = key;
  }
};

std::vector<Promise> KeptSample(FakeVerifier& fake, int n) {
  std::vector<Promise> sample;
  for (int i = 0; i < n; ++i) {
    sample.push_back({"k" + std::to_string(i), "v" + std::to_string(i), i});
    fake.Keep(sample.back().key, sample.back().value);
  }
  return sample;
}

TEST(VerifyLedgerTest, TransientErrorsAreRetriedUntilDecided) {
  FakeVerifier fake;
  const std::vector<Promise> sample = KeptSample(fake, 10);
  fake.transient_for_key = {{"k3", 3}, {"k7", 1}};
  const VerificationReport r = VerifyLedger(
      sample, {}, fake, {.concurrency = 2, .retry_backoff_initial = milliseconds(1), .retry_backoff_max = milliseconds(4)});
  EXPECT_EQ(r.checked, 10u);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.retries, 4u);
  EXPECT_TRUE(r.undecided_by_code.empty());
}

TEST(VerifyLedgerTest, InternalIsNotRetriedAndIsCountedByCode) {
  // A lost row that the service answers with INTERNAL is undecided, by code: never a pass.
  FakeVerifier fake;
  const std::vector<Promise> sample = KeptSample(fake, 5);
  fake.error_for_key = {{"k1", "Get: INTERNAL: row vanished"}, {"k2", "Get: INTERNAL: row vanished"}, {"k3", "?"}};
  fake.code_for_key = {{"k1", kCodeInternal}, {"k2", kCodeInternal}};
  fake.throw_for_key = "k4";
  const VerificationReport r = VerifyLedger(sample, {}, fake, {.concurrency = 1});
  EXPECT_EQ(r.checked, 1u);
  EXPECT_EQ(r.errors, 4u);
  EXPECT_EQ(r.retries, 0u);
  EXPECT_EQ(r.undecided(), 4u);
  EXPECT_EQ(r.undecided_by_code, (std::map<std::string, std::size_t>{{"INTERNAL", 2}, {"UNKNOWN", 1}, {"exception", 1}}));
}

TEST(VerifyLedgerTest, RetriesStopAtTheOverallDeadline) {
  FakeVerifier fake;
  const std::vector<Promise> sample = KeptSample(fake, 1);
  fake.transient_for_key = {{"k0", 1000000}};
  const auto start = std::chrono::steady_clock::now();
  const VerificationReport r = VerifyLedger(sample, {}, fake,
                                            {.concurrency = 1, .overall_deadline = milliseconds(300),
                                             .retry_backoff_initial = milliseconds(10), .retry_backoff_max = milliseconds(50)});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // bounded, not a speed claim
  EXPECT_EQ(r.errors, 1u);
  EXPECT_EQ(r.undecided_by_code, (std::map<std::string, std::size_t>{{"UNAVAILABLE", 1}}));
  EXPECT_GT(r.retries, 0u);
}

TEST(LatestPerKeyTest, KeepsTheLastAcknowledgedValueOfAKeyAndCountsTheEarlierOnes) {
  const LatestPromises latest = LatestPerKey({{"a", "1", 100}, {"b", "x", 150}, {"a", "2", 200}, {"a", "3", 200}});
  EXPECT_EQ(latest.superseded, 2u);
  ASSERT_EQ(latest.promises.size(), 2u);
  EXPECT_EQ(latest.promises[0].key, "b");
  EXPECT_EQ(latest.promises[1].key, "a");
  EXPECT_EQ(latest.promises[1].value, "3");  // equal times: the one recorded last
}

// A target that overwrites a key: the in-run ledger and the ledger file re-read by aftershock-verify
// must give the same verdict (the in-run one used to keep the first value, the file all of them).
TEST(VerifyLedgerTest, TheInRunLedgerAndItsFileAgreeOnAnOverwrittenKey) {
  FakeVerifier fake;
  fake.Keep("k1", "v1-new");  // the service holds the last write of k1
  fake.Keep("k2", "v2");
  const std::string path = testing::TempDir() + "/overwrite-ledger.tsv";
  PromiseLedger ledger({.capacity = 1000});
  ledger.AttachStream(LedgerStream::Open(path, {}));
  ledger.RecordAcknowledged({.key = "k1", .value = "v1-old", .unix_ms = 1000});
  ledger.RecordAcknowledged({.key = "k2", .value = "v2", .unix_ms = 1500});
  ledger.RecordAcknowledged({.key = "k1", .value = "v1-new", .unix_ms = 2000});
  ledger.CloseStream();
  const VerificationReport in_run = VerifyLedger(ledger.Sample(), {}, fake, {.concurrency = 2});
  const LedgerFile file = ReadLedgerFile(path);
  ASSERT_EQ(file.promises.size(), 3u);
  const VerificationReport from_file = VerifyLedger(file.promises, {}, fake, {.concurrency = 2});
  for (const VerificationReport* r : {&in_run, &from_file}) {
    EXPECT_EQ(r->sample_size, 2u);
    EXPECT_EQ(r->superseded, 1u);
    EXPECT_EQ(r->checked, 2u);
    EXPECT_EQ(r->p2_violations + r->p3_violations, 0u);  // v1-old is superseded, not a change
  }
  // The service that kept the old value instead lost the last acknowledged write: red both ways.
  fake.Keep("k1", "v1-old");
  fake.reverse.erase("v1-new");
  EXPECT_EQ(VerifyLedger(ledger.Sample(), {}, fake, {}).p3_violations, 1u);
  EXPECT_EQ(VerifyLedger(file.promises, {}, fake, {}).p3_violations, 1u);
}

// A verifier that never re-issues anything cannot make P2 pass: a stability verdict without the
// re-issue's answer decides nothing.
TEST(VerifyLedgerTest, StabilityWithoutAReissueDecidesNothing) {
  struct ClaimsStability : PromiseVerifier {
    PromiseCheck Check(const Promise&, std::chrono::system_clock::time_point) override {
      PromiseCheck c;
      c.lookup = PromiseCheck::Lookup::kHeld;
      c.stability = PromiseCheck::Stability::kHeld;  // claimed, never re-issued
      return c;
    }
  } claims;
  const std::vector<Promise> sample = {{"a", "1", 1}, {"b", "2", 2}};
  const VerificationReport r = VerifyLedger(sample, {}, claims, {});
  EXPECT_EQ(r.p2_decided, 0u);
  EXPECT_EQ(r.stability_without_reissue, 2u);
  EXPECT_EQ(r.p3_decided, 2u);
  EXPECT_EQ(r.checked, 2u);
  // The re-issue's answer decides, whatever stability the verifier wrote beside it.
  struct Reissues : PromiseVerifier {
    PromiseCheck Check(const Promise& p, std::chrono::system_clock::time_point) override {
      PromiseCheck c;
      c.lookup = PromiseCheck::Lookup::kHeld;
      c.SetReissued(p, p.key == "b" ? "other" : p.value);
      c.stability = PromiseCheck::Stability::kHeld;  // overwritten by VerifyLedger from `reissued`
      return c;
    }
  } reissues;
  const VerificationReport d = VerifyLedger(sample, {}, reissues, {});
  EXPECT_EQ(d.p2_decided, 2u);
  EXPECT_EQ(d.p2_violations, 1u);
}

TEST(VerifyLedgerTest, AllHeld) {
  FakeVerifier fake;
  std::vector<Promise> sample;
  for (int i = 0; i < 100; ++i) {
    sample.push_back({"k" + std::to_string(i), "v" + std::to_string(i), i});
    fake.Keep(sample.back().key, sample.back().value);
  }
  const VerificationReport r = VerifyLedger(sample, {}, fake, {.concurrency = 4});
  EXPECT_EQ(r.sample_size, 100u);
  EXPECT_EQ(r.checked, 100u);
  EXPECT_EQ(r.p2_violations, 0u);
  EXPECT_EQ(r.p3_violations, 0u);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.unverified, 0u);
  EXPECT_TRUE(r.violations.empty());
}

TEST(VerifyLedgerTest, CountsEachPropertyDecidedOnItsOwn) {
  // The read-back decided, the re-issue an error: P3 decided, P2 not, and the promise undecided.
  struct ReadBackOnly : PromiseVerifier {
    PromiseCheck Check(const Promise&, std::chrono::system_clock::time_point) override {
      PromiseCheck c;
      c.lookup = PromiseCheck::Lookup::kHeld;
      c.stability = PromiseCheck::Stability::kError;
      c.error = "INTERNAL: re-issue failed";
      c.error_code = 13;
      return c;
    }
  } verifier;
  const VerificationReport r = VerifyLedger({{"a", "1", 1}, {"b", "2", 2}}, {}, verifier, {.retry_codes = {}});
  EXPECT_EQ(r.p3_decided, 2u);
  EXPECT_EQ(r.p2_decided, 0u);
  EXPECT_EQ(r.checked, 0u);
  EXPECT_EQ(r.errors, 2u);
}

TEST(VerifyLedgerTest, DetectsChangedNotFoundAndWrongKeyAndCountsErrors) {
  FakeVerifier fake;
  fake.Keep("good", "v1");
  fake.forward["changed"] = "v2-new";  // re-issue answers a different value (P2)
  fake.reverse["v2"] = "changed";
  fake.forward["lost"] = "v3";  // read-back of v3 finds nothing (P3 NotFound)
  fake.forward["swapped"] = "v4";
  fake.reverse["v4"] = "someone-else";  // read-back yields another key (P3 wrong key)
  fake.error_for_key["flaky"] = "UNAVAILABLE: connection reset";
  fake.throw_for_key = "thrower";
  const std::vector<Promise> sample = {{"good", "v1", 1},    {"changed", "v2", 2}, {"lost", "v3", 3},
                                       {"swapped", "v4", 4}, {"flaky", "v5", 5},   {"thrower", "v6", 6}};
  const std::vector<IndeterminatePromise> indeterminate = {
      {"good", 7, kCodeDeadlineExceeded}, {"never", 8, kCodeUnavailable}, {"thrower", 9, kCodeUnavailable}};

  const VerificationReport r = VerifyLedger(sample, indeterminate, fake, {.concurrency = 3});
  EXPECT_EQ(r.checked, 4u);
  EXPECT_EQ(r.errors, 2u);
  EXPECT_EQ(r.unverified, 0u);
  EXPECT_EQ(r.p2_violations, 1u);
  EXPECT_EQ(r.p3_violations, 2u);
  // Both properties decided for the four checked promises, neither for the two that errored.
  EXPECT_EQ(r.p2_decided, 4u);
  EXPECT_EQ(r.p3_decided, 4u);
  ASSERT_EQ(r.violations.size(), 3u);

  const Violation& changed = r.violations[0];
  EXPECT_EQ(changed.key, "changed");
  EXPECT_EQ(changed.expected, "v2");
  EXPECT_EQ(changed.observed, "v2-new");
  EXPECT_EQ(changed.property, Violation::Property::kP2Stability);
  EXPECT_EQ(changed.kind, Violation::Kind::kChanged);
  EXPECT_EQ(DescribeViolation(changed), "P2 changed: key 'changed' value 'v2' expected 'v2' observed 'v2-new'");

  const Violation& lost = r.violations[1];
  EXPECT_EQ(lost.key, "lost");
  EXPECT_EQ(lost.value, "v3");
  EXPECT_EQ(lost.property, Violation::Property::kP3ReverseLookup);
  EXPECT_EQ(lost.kind, Violation::Kind::kNotFound);
  EXPECT_EQ(lost.unix_ms, 3);
  EXPECT_EQ(DescribeViolation(lost), "P3 NotFound: key 'lost' value 'v3'");

  const Violation& swapped = r.violations[2];
  EXPECT_EQ(swapped.kind, Violation::Kind::kWrongKey);
  EXPECT_EQ(swapped.expected, "swapped");
  EXPECT_EQ(swapped.observed, "someone-else");
  EXPECT_EQ(DescribeViolation(swapped),
            "P3 wrong key: key 'swapped' value 'v4' expected 'swapped' observed 'someone-else'");

  ASSERT_EQ(r.error_samples.size(), 2u);
  EXPECT_EQ(r.error_samples[0], "key 'flaky': UNAVAILABLE: connection reset");
  EXPECT_EQ(r.error_samples[1], "key 'thrower': exception: boom");

  EXPECT_EQ(r.indeterminate_total, 3u);
  EXPECT_EQ(r.indeterminate_committed, 1u);
  EXPECT_EQ(r.indeterminate_not_committed, 1u);
  EXPECT_EQ(r.indeterminate_unknown, 1u);
}

TEST(VerifyLedgerTest, DefaultProbeIsUnknown) {
  struct OnlyCheck : PromiseVerifier {
    PromiseCheck Check(const Promise& p, std::chrono::system_clock::time_point) override {
      return HeldCheck(p);
    }
  } verifier;
  const VerificationReport r = VerifyLedger({{"a", "1", 1}}, {{"b", 2, kCodeDeadlineExceeded}}, verifier);
  EXPECT_EQ(r.checked, 1u);
  EXPECT_EQ(r.indeterminate_total, 1u);
  EXPECT_EQ(r.indeterminate_unknown, 1u);
}

// Counts concurrent Check calls; the first calls wait (bounded) until `target` are in flight, so a
// pool that honours the bound reaches exactly `target` and one that does not exceeds it.
class ConcurrencyProbe : public PromiseVerifier {
 public:
  explicit ConcurrencyProbe(int target) : target_(target) {}
  PromiseCheck Check(const Promise& p, std::chrono::system_clock::time_point) override {
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++in_flight_;
      max_ = std::max(max_, in_flight_);
      cv_.notify_all();
      cv_.wait_for(lock, std::chrono::seconds(5), [&] { return max_ >= target_; });
    }
    std::this_thread::sleep_for(milliseconds(1));
    {
      std::lock_guard<std::mutex> lock(mu_);
      --in_flight_;
    }
    ++calls;
    return HeldCheck(p);
  }
  int max() {
    std::lock_guard<std::mutex> lock(mu_);
    return max_;
  }
  std::atomic<int> calls{0};

 private:
  const int target_;
  std::mutex mu_;
  std::condition_variable cv_;
  int in_flight_ = 0;
  int max_ = 0;
};

TEST(VerifyLedgerTest, HonoursTheConcurrencyBound) {
  std::vector<Promise> sample;
  for (int i = 0; i < 60; ++i) sample.push_back({"k" + std::to_string(i), "v", i});
  ConcurrencyProbe bounded(/*target=*/3);
  const VerificationReport r = VerifyLedger(sample, {}, bounded, {.concurrency = 3});
  EXPECT_EQ(r.checked, 60u);
  EXPECT_EQ(bounded.calls.load(), 60);
  EXPECT_EQ(bounded.max(), 3);
}

TEST(VerifyLedgerTest, StopsStartingChecksAfterTheOverallDeadline) {
  struct Slow : PromiseVerifier {
    std::atomic<int> calls{0};
    PromiseCheck Check(const Promise& p, std::chrono::system_clock::time_point) override {
      ++calls;
      std::this_thread::sleep_for(milliseconds(50));
      return HeldCheck(p);
    }
  } slow;
  std::vector<Promise> sample;
  for (int i = 0; i < 100; ++i) sample.push_back({"k" + std::to_string(i), "v", i});
  const std::vector<IndeterminatePromise> indeterminate = {{"x", 1, kCodeUnavailable}};
  const auto start = std::chrono::steady_clock::now();
  const VerificationReport r =
      VerifyLedger(sample, indeterminate, slow, {.concurrency = 1, .overall_deadline = milliseconds(200)});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(r.checked, 1u);
  EXPECT_LE(r.checked, 20u);  // ~4 expected; generous for a loaded machine
  EXPECT_EQ(r.checked, static_cast<std::size_t>(slow.calls.load()));
  EXPECT_EQ(r.checked + r.errors + r.unverified, 100u);
  EXPECT_EQ(r.indeterminate_unknown, 1u);
  EXPECT_LT(elapsed, std::chrono::seconds(10));
}

TEST(VerifyLedgerTest, PassesEachCallItsOwnDeadline) {
  struct DeadlineSpy : PromiseVerifier {
    std::mutex mu;
    std::vector<std::chrono::system_clock::duration> remaining;
    PromiseCheck Check(const Promise& p, std::chrono::system_clock::time_point deadline) override {
      std::lock_guard<std::mutex> lock(mu);
      remaining.push_back(deadline - std::chrono::system_clock::now());
      return HeldCheck(p);
    }
  } spy;
  VerifyLedger({{"a", "1", 1}, {"b", "2", 2}}, {}, spy, {.concurrency = 1, .call_deadline = milliseconds(3000)});
  ASSERT_EQ(spy.remaining.size(), 2u);
  for (auto d : spy.remaining) {
    EXPECT_GT(d, std::chrono::milliseconds(1000));
    EXPECT_LE(d, std::chrono::milliseconds(3000));
  }
}

TEST(VerifyLedgerTest, EmptySampleChecksNothing) {
  FakeVerifier fake;
  const VerificationReport r = VerifyLedger({}, {}, fake);
  EXPECT_EQ(r.checked, 0u);
  EXPECT_EQ(r.sample_size, 0u);
  EXPECT_EQ(r.indeterminate_total, 0u);
}

}  // namespace
}  // namespace aftershock::ledger

namespace aftershock::ledger {
namespace {

// Checks only what `decide` says; everything else kNotChecked.
class PartialVerifier : public PromiseVerifier {
 public:
  std::function<PromiseCheck(const Promise&)> decide;
  PromiseCheck Check(const Promise& p, std::chrono::system_clock::time_point) override { return decide(p); }
};

PromiseCheck NotChecked() {
  PromiseCheck c;
  c.lookup = PromiseCheck::Lookup::kNotChecked;
  c.stability = PromiseCheck::Stability::kNotChecked;
  return c;
}

TEST(VerifyLedgerTest, CountsThePromisesEachPropertyWasDecidedFor) {
  FakeVerifier fake;
  const VerificationReport both = VerifyLedger(KeptSample(fake, 6), {}, fake);
  EXPECT_EQ(both.p2_decided, 6u);
  EXPECT_EQ(both.p3_decided, 6u);

  PartialVerifier read_only;
  read_only.decide = [](const Promise& p) {
    PromiseCheck c = NotChecked();
    c.read_back = p.key == "k1" ? PromiseCheck::ReadBack::kError : PromiseCheck::ReadBack::kHeld;
    c.error_code = kCodeUnavailable;
    return c;
  };
  FakeVerifier unused;
  const VerificationReport r =
      VerifyLedger(KeptSample(unused, 4), {}, read_only, {.overall_deadline = milliseconds(300)});
  EXPECT_EQ(r.p2_decided, 0u);  // nothing was re-issued: P2 has nothing to say
  EXPECT_EQ(r.p3_decided, 3u);
  EXPECT_EQ(r.checked, 3u);
  EXPECT_EQ(r.errors, 1u);
  EXPECT_EQ(r.p2_violations + r.p3_violations, 0u);
}

TEST(VerifyLedgerTest, ACheckThatDecidesNothingIsUndecidedNeverAPass) {
  PartialVerifier nothing;
  nothing.decide = [](const Promise&) { return NotChecked(); };
  FakeVerifier unused;
  const VerificationReport r = VerifyLedger(KeptSample(unused, 3), {}, nothing);
  EXPECT_EQ(r.checked, 0u);
  EXPECT_EQ(r.errors, 3u);
  EXPECT_EQ(r.undecided_by_code.at("nothing checked"), 3u);
  EXPECT_EQ(r.p2_decided + r.p3_decided, 0u);
}

TEST(VerifyLedgerTest, ReadBackViolationsDescribeThemselvesAsReadBacks) {
  PartialVerifier reader;
  reader.decide = [](const Promise& p) {
    PromiseCheck c = NotChecked();
    if (p.key == "k0") {
      c.read_back = PromiseCheck::ReadBack::kNotFound;
    } else if (p.key == "k1") {
      c.read_back = PromiseCheck::ReadBack::kWrongValue;
      c.observed_read = "w";
    } else {
      c.read_back = PromiseCheck::ReadBack::kHeld;
    }
    return c;
  };
  std::vector<Promise> sample;
  for (int i = 0; i < 3; ++i) {
    sample.push_back({"k" + std::to_string(i), "v" + std::to_string(i), i, PromiseKind::kWritten});
  }
  const VerificationReport r = VerifyLedger(sample, {}, reader);
  EXPECT_EQ(r.p3_violations, 2u);
  EXPECT_EQ(r.p2_violations, 0u);
  EXPECT_EQ(r.checked, 3u);
  ASSERT_EQ(r.violations.size(), 2u);
  EXPECT_EQ(DescribeViolation(r.violations[0]), "P3 read-back NotFound: key 'k0' expected 'v0'");
  EXPECT_EQ(DescribeViolation(r.violations[1]), "P3 read-back: key 'k1' expected 'v1' observed 'w'");
  EXPECT_EQ(r.violations[1].kind, Violation::Kind::kWrongValue);
  EXPECT_EQ(r.violations[1].property, Violation::Property::kP3ReverseLookup);  // P3's gate counts it
}

}  // namespace
}  // namespace aftershock::ledger
