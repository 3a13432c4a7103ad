#include "framework/ledger/promise_ledger.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace aftershock::ledger {
namespace {

Promise P(int i, std::int64_t ms) { return Promise{"k" + std::to_string(i), "v" + std::to_string(i), ms}; }

std::set<std::string> Keys(const std::vector<Promise>& promises) {
  std::set<std::string> keys;
  for (const Promise& p : promises) keys.insert(p.key);
  return keys;
}

// The layout of a promise before attributes existed: a promise without attributes may grow by one
// pointer at most (ledgers hold 100,000s; glibc rounds the ledger's make_shared block of either
// size to the same 112-byte chunk, bench/ledger_benchmark measures it).
struct PromiseWithoutAttributes {
  std::string key;
  std::string value;
  std::int64_t unix_ms = 0;
  PromiseKind kind = PromiseKind::kIssued;
};

TEST(PromiseLedgerTest, AttributesCostOnePointerWhenAbsent) {
  EXPECT_LE(sizeof(Promise), sizeof(PromiseWithoutAttributes) + sizeof(void*));
  EXPECT_EQ(sizeof(PromiseAttributes), sizeof(void*));
  EXPECT_TRUE(Promise{}.attributes.empty());
}

TEST(PromiseLedgerTest, AttributesAreSortedUniqueAndValidated) {
  PromiseAttributes a{{"shard", "2"}, {"node", "kv-a"}};
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(a.begin()->first, "node");
  a.Set("shard", "3");
  EXPECT_EQ(a.Get("shard"), "3");
  EXPECT_EQ(a.size(), 2u);
  PromiseAttributes copy = a;
  EXPECT_EQ(copy, a);
  copy.Set("zone", "z");
  EXPECT_NE(copy, a);
  try {
    a.Set("Shard", "1");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "promise attribute name 'Shard' is not [a-z0-9._-]+");
  }
  try {
    PromiseAttributes twice{{"shard", "1"}, {"shard", "2"}};
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "promise attribute 'shard' is given twice");
  }
}

TEST(PromiseLedgerTest, CountsEveryAcknowledgedPromisePerAttributeValue) {
  PromiseLedger ledger(LedgerOptions{.capacity = 2});  // the counts cover more than the sample
  for (int i = 0; i < 10; ++i) {
    Promise p = P(i, i);
    p.attributes.Set("shard", std::to_string(i % 3));
    if (i < 4) p.attributes.Set("node", "a");
    ledger.RecordAcknowledged(std::move(p));
  }
  ledger.RecordAcknowledged(P(10, 10));  // no attributes: in no count
  const AttributeCounts counts = ledger.AcknowledgedByAttribute();
  EXPECT_EQ(counts, (AttributeCounts{{"node", {{"a", 4}}}, {"shard", {{"0", 4}, {"1", 3}, {"2", 3}}}}));
  EXPECT_EQ(ledger.Sample().size(), 2u);
}

TEST(PromiseLedgerTest, ManyDistinctAttributeValuesAreCountedTogetherBeyondTheLimit) {
  PromiseLedger ledger;
  const int n = static_cast<int>(kMaxAttributeValues) + 10;
  for (int i = 0; i < n; ++i) {
    Promise p = P(i, i);
    p.attributes.Set("request", std::to_string(i));
    ledger.RecordAcknowledged(std::move(p));
  }
  const auto values = ledger.AcknowledgedByAttribute().at("request");
  EXPECT_EQ(values.size(), kMaxAttributeValues + 1);
  EXPECT_EQ(values.at(std::string(kOtherAttributeValue)), 10u);
}

TEST(PromiseLedgerTest, ExhaustiveUpToCapacity) {
  PromiseLedger ledger(LedgerOptions{.capacity = 10});
  for (int i = 0; i < 10; ++i) ledger.RecordAcknowledged(P(i, 1000 + i));
  const std::vector<Promise> sample = ledger.Sample();
  ASSERT_EQ(sample.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(sample[i], P(i, 1000 + i));
  EXPECT_EQ(ledger.acknowledged(), 10u);
  EXPECT_EQ(ledger.Counters().reservoir_dropped, 0u);
}

TEST(PromiseLedgerTest, ReservoirKeepsCapacityAndCountsTheRest) {
  PromiseLedger ledger(LedgerOptions{.capacity = 50, .seed = 7});
  for (int i = 0; i < 1000; ++i) ledger.RecordAcknowledged(P(i, i));
  const std::vector<Promise> sample = ledger.Sample();
  ASSERT_EQ(sample.size(), 50u);
  for (const Promise& p : sample) {
    const int i = std::stoi(p.key.substr(1));
    EXPECT_EQ(p, P(i, i));
  }
  EXPECT_EQ(ledger.acknowledged(), 1000u);
  EXPECT_EQ(ledger.Counters().reservoir_dropped, 950u);
}

TEST(PromiseLedgerTest, ReservoirIsDeterministicBySeed) {
  auto run = [](std::uint64_t seed) {
    PromiseLedger ledger(LedgerOptions{.capacity = 50, .seed = seed});
    for (int i = 0; i < 1000; ++i) ledger.RecordAcknowledged(P(i, i));
    return ledger.Sample();
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

TEST(PromiseLedgerTest, ReservoirIsUniformOverTheStream) {
  // Algorithm R keeps every item with probability capacity/total; a biased sampler (e.g. one that
  // favours the newest) puts far more than half of its picks in the second half. Deterministic seeds.
  std::size_t late = 0;
  std::size_t picks = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    PromiseLedger ledger(LedgerOptions{.capacity = 100, .seed = seed});
    for (int i = 0; i < 1000; ++i) ledger.RecordAcknowledged(P(i, i));
    for (const Promise& p : ledger.Sample()) {
      ++picks;
      if (p.unix_ms >= 500) ++late;
    }
  }
  ASSERT_EQ(picks, 4000u);
  EXPECT_GT(late, 1800u);
  EXPECT_LT(late, 2200u);
}

// A key acknowledged twice keeps both values in the sample (as the ledger file does); verification
// judges the last (LatestPerKey, verifier_test.cc). A record both sampled and pinned appears once.
TEST(PromiseLedgerTest, KeepsEveryValueOfAKeyAndEachRecordOnce) {
  PromiseLedger ledger(LedgerOptions{.capacity = 10, .fault_window_ms = 1000, .fault_capacity = 10});
  ledger.MarkFault(0, 100);  // pins all three: each must still appear once
  ledger.RecordAcknowledged({"alice", "p-1", 5});
  ledger.RecordAcknowledged({"alice", "p-2", 6});
  ledger.RecordAcknowledged({"bob", "p-3", 7});
  const std::vector<Promise> sample = ledger.Sample();
  ASSERT_EQ(sample.size(), 3u);
  EXPECT_EQ(sample[0], (Promise{"alice", "p-1", 5}));
  EXPECT_EQ(sample[1], (Promise{"alice", "p-2", 6}));
  EXPECT_EQ(sample[2], (Promise{"bob", "p-3", 7}));
  EXPECT_EQ(ledger.acknowledged(), 3u);
  EXPECT_EQ(LatestPerKey(sample).promises, (std::vector<Promise>{{"alice", "p-2", 6}, {"bob", "p-3", 7}}));
}

TEST(PromiseLedgerTest, PinsPromisesJustBeforeAndAfterAFaultWithTinyCapacity) {
  PromiseLedger ledger(LedgerOptions{.capacity = 1, .seed = 3, .fault_window_ms = 1000, .fault_capacity = 100});
  for (int i = 0; i < 50; ++i) ledger.RecordAcknowledged(P(i, i * 100));  // 0 .. 4900 ms
  ledger.MarkFault(5000, 6000);                                           // keeps 4000 .. 7000 ms
  for (int i = 50; i < 100; ++i) ledger.RecordAcknowledged(P(i, i * 100));  // 5000 .. 9900 ms

  const std::set<std::string> keys = Keys(ledger.Sample());
  for (int i = 40; i <= 70; ++i) EXPECT_TRUE(keys.count("k" + std::to_string(i))) << "missing k" << i;
  std::size_t outside = 0;
  for (const std::string& k : keys) {
    const int i = std::stoi(k.substr(1));
    if (i < 40 || i > 70) ++outside;
  }
  EXPECT_LE(outside, 1u);  // only the one reservoir slot
  const LedgerCounters c = ledger.Counters();
  EXPECT_EQ(c.pinned, 31u);
  EXPECT_EQ(c.fault_overflow, 0u);
  EXPECT_EQ(c.faults_marked, 1u);
  EXPECT_EQ(c.acknowledged, 100u);
}

TEST(PromiseLedgerTest, OverlappingFaultsPinEachPromiseOnce) {
  PromiseLedger ledger(LedgerOptions{.capacity = 0, .fault_window_ms = 100, .fault_capacity = 100});
  for (int i = 0; i < 10; ++i) ledger.RecordAcknowledged(P(i, 1000 + i * 10));  // 1000 .. 1090
  ledger.MarkFault(1100, 1100);
  ledger.MarkFault(1100, 1200);
  EXPECT_EQ(ledger.Counters().pinned, 10u);
  EXPECT_EQ(ledger.Sample().size(), 10u);
}

TEST(PromiseLedgerTest, CountsNearFaultPromisesBeyondFaultCapacity) {
  PromiseLedger ledger(LedgerOptions{.capacity = 0, .fault_window_ms = 10000, .fault_capacity = 5});
  for (int i = 0; i < 20; ++i) ledger.RecordAcknowledged(P(i, i));  // ring keeps the last 5
  ledger.MarkFault(20, 30);
  EXPECT_EQ(ledger.Counters().pinned, 5u);
  EXPECT_EQ(ledger.Counters().fault_overflow, 15u);  // 15 pushed out of the ring before the mark
  ledger.RecordAcknowledged(P(20, 21));
  const LedgerCounters c = ledger.Counters();
  EXPECT_EQ(c.pinned, 5u);
  EXPECT_EQ(c.fault_overflow, 16u);
  EXPECT_EQ(Keys(ledger.Sample()), (std::set<std::string>{"k15", "k16", "k17", "k18", "k19"}));
}

TEST(PromiseLedgerTest, PromisesOutsideEveryFaultWindowAreNotPinned) {
  PromiseLedger ledger(LedgerOptions{.capacity = 0, .fault_window_ms = 100, .fault_capacity = 100});
  ledger.RecordAcknowledged(P(0, 0));
  ledger.MarkFault(1000, 2000);  // window 900 .. 2100
  ledger.RecordAcknowledged(P(1, 899));
  ledger.RecordAcknowledged(P(2, 900));
  ledger.RecordAcknowledged(P(3, 2100));
  ledger.RecordAcknowledged(P(4, 2101));
  EXPECT_EQ(Keys(ledger.Sample()), (std::set<std::string>{"k2", "k3"}));
}

TEST(PromiseLedgerTest, AnOpenFaultPinsUntilItIsClosed) {
  PromiseLedger ledger(LedgerOptions{.capacity = 0, .fault_window_ms = 100, .fault_capacity = 1000});
  ledger.RecordAcknowledged(P(0, 0));
  ledger.RecordAcknowledged(P(1, 950));
  const std::uint64_t span = ledger.OpenFault(1000);  // pins from 900 on, however long the fault lasts
  for (int i = 2; i < 40; ++i) ledger.RecordAcknowledged(P(i, 1000 + i * 100));  // .. 4900
  ledger.CloseFault(span, 3000);                                               // .. 3100
  ledger.RecordAcknowledged(P(40, 3100));
  ledger.RecordAcknowledged(P(41, 3101));
  const std::set<std::string> keys = Keys(ledger.Sample());
  EXPECT_FALSE(keys.count("k0"));
  EXPECT_TRUE(keys.count("k1"));
  EXPECT_TRUE(keys.count("k39"));  // recorded while the span was open
  EXPECT_TRUE(keys.count("k40"));
  EXPECT_FALSE(keys.count("k41"));
  // A later event extends a closed span; an unknown id is ignored.
  ledger.CloseFault(span, 4000);
  ledger.RecordAcknowledged(P(42, 4050));
  ledger.CloseFault(12345, 9000);
  EXPECT_TRUE(Keys(ledger.Sample()).count("k42"));
}

TEST(PromiseLedgerTest, DefaultCapacityKeepsAnHourAt200PerSecondExhaustive) {
  EXPECT_GE(LedgerOptions{}.capacity, 720'000u);
}

TEST(PromiseLedgerTest, IndeterminateBoundedAndCounted) {
  PromiseLedger ledger(LedgerOptions{.indeterminate_capacity = 3});
  for (int i = 0; i < 5; ++i) {
    ledger.RecordIndeterminate({"k" + std::to_string(i), i, kCodeDeadlineExceeded});
  }
  const std::vector<IndeterminatePromise> kept = ledger.Indeterminate();
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[2], (IndeterminatePromise{"k2", 2, kCodeDeadlineExceeded}));
  const LedgerCounters c = ledger.Counters();
  EXPECT_EQ(c.indeterminate, 5u);
  EXPECT_EQ(c.indeterminate_dropped, 2u);
  EXPECT_EQ(c.acknowledged, 0u);  // indeterminate calls are not acknowledged promises
}

TEST(PromiseLedgerTest, ManyThreadsRecordConcurrently) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 5000;
  PromiseLedger ledger(LedgerOptions{.capacity = 500, .fault_window_ms = 50, .fault_capacity = 300});
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&ledger, t] {
        for (int i = 0; i < kPerThread; ++i) {
          const int id = t * kPerThread + i;
          ledger.RecordAcknowledged(P(id, i));
          if (i % 100 == 0) ledger.RecordIndeterminate({"x" + std::to_string(id), i, kCodeUnavailable});
        }
      });
    }
    threads.emplace_back([&ledger] {
      for (int i = 0; i < 50; ++i) {
        ledger.MarkFault(i * 100, i * 100 + 10);
        EXPECT_LE(ledger.Sample().size(), 800u);
      }
    });
  }
  EXPECT_EQ(ledger.acknowledged(), static_cast<std::uint64_t>(kThreads * kPerThread));
  const std::vector<Promise> sample = ledger.Sample();
  EXPECT_GE(sample.size(), 500u);
  EXPECT_LE(sample.size(), 800u);
  EXPECT_EQ(Keys(sample).size(), sample.size());
  EXPECT_EQ(ledger.Counters().indeterminate, static_cast<std::uint64_t>(kThreads * kPerThread / 100));
  EXPECT_EQ(ledger.Counters().faults_marked, 50u);
}

}  // namespace
}  // namespace aftershock::ledger
