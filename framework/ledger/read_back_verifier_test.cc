#include "framework/ledger/read_back_verifier.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace aftershock::ledger {
namespace {

using std::chrono::milliseconds;

// A key-value store as the verifier sees it: some keys, some failing with a code.
struct FakeStore {
  std::map<std::string, std::string> data;
  std::map<std::string, CallCode> failing;
  std::map<std::string, int> reads;
  std::mutex mu;

  ReadBackVerifier::Read Reader() {
    return [this](const std::string& key, ReadBackVerifier::Deadline) {
      std::lock_guard<std::mutex> lock(mu);
      ++reads[key];
      if (auto f = failing.find(key); f != failing.end()) return KeyRead::Error(f->second, "no luck");
      auto it = data.find(key);
      return it == data.end() ? KeyRead::NotFound() : KeyRead::Found(it->second);
    };
  }
};

std::vector<Promise> Written(int n) {
  std::vector<Promise> out;
  for (int i = 0; i < n; ++i) out.push_back({"k" + std::to_string(i), "v" + std::to_string(i), i, PromiseKind::kWritten});
  return out;
}

TEST(ReadBackVerifierTest, GreenWhenEveryWriteReadsBack) {
  FakeStore store;
  for (const Promise& p : Written(20)) store.data[p.key] = p.value;
  ReadBackVerifier verifier(store.Reader());
  const VerificationReport r = VerifyLedger(Written(20), {}, verifier);
  EXPECT_EQ(r.checked, 20u);
  EXPECT_EQ(r.p3_decided, 20u);
  EXPECT_EQ(r.p2_decided, 0u);
  EXPECT_EQ(r.p3_violations, 0u);
  EXPECT_TRUE(r.violations.empty());
}

TEST(ReadBackVerifierTest, RedOnALostOrChangedWriteNamingTheKey) {
  FakeStore store;
  for (const Promise& p : Written(10)) store.data[p.key] = p.value;
  store.data.erase("k3");
  store.data["k6"] = "other";
  ReadBackVerifier verifier(store.Reader());
  const VerificationReport r = VerifyLedger(Written(10), {}, verifier);
  EXPECT_EQ(r.p3_violations, 2u);
  ASSERT_EQ(r.violations.size(), 2u);
  EXPECT_EQ(DescribeViolation(r.violations[0]), "P3 read-back NotFound: key 'k3' expected 'v3'");
  EXPECT_EQ(DescribeViolation(r.violations[1]), "P3 read-back: key 'k6' expected 'v6' observed 'other'");
}

TEST(ReadBackVerifierTest, AnErrorIsUndecidedAndATransientOneIsRetried) {
  FakeStore store;
  for (const Promise& p : Written(4)) store.data[p.key] = p.value;
  store.failing = {{"k1", kCodeInternal}, {"k2", kCodeUnavailable}};
  ReadBackVerifier verifier(store.Reader());
  const VerificationReport r = VerifyLedger(
      Written(4), {}, verifier,
      {.overall_deadline = milliseconds(400), .retry_backoff_initial = milliseconds(10), .retry_backoff_max = milliseconds(20)});
  EXPECT_EQ(r.checked, 2u);
  EXPECT_EQ(r.errors, 2u);
  EXPECT_EQ(r.p3_violations, 0u);  // an error is never a violation, and never a pass
  EXPECT_EQ(r.undecided_by_code.at("INTERNAL"), 1u);
  EXPECT_EQ(r.undecided_by_code.at("UNAVAILABLE"), 1u);
  EXPECT_EQ(store.reads["k1"], 1);
  EXPECT_GT(store.reads["k2"], 1);
}

TEST(ReadBackVerifierTest, ProbesIndeterminateWritesWithTheSameRead) {
  FakeStore store;
  store.data = {{"in", "x"}};
  store.failing = {{"err", kCodeUnavailable}};
  ReadBackVerifier verifier(store.Reader());
  const VerificationReport r = VerifyLedger({}, {{"in", 1, kCodeDeadlineExceeded}, {"out", 2, kCodeDeadlineExceeded},
                                                 {"err", 3, kCodeDeadlineExceeded}},
                                            verifier);
  EXPECT_EQ(r.indeterminate_committed, 1u);
  EXPECT_EQ(r.indeterminate_not_committed, 1u);
  EXPECT_EQ(r.indeterminate_unknown, 1u);
  ReadBackVerifier no_probe(store.Reader(), /*probe_indeterminate=*/false);
  EXPECT_EQ(VerifyLedger({}, {{"in", 1, kCodeDeadlineExceeded}}, no_probe).indeterminate_unknown, 1u);
}

}  // namespace
}  // namespace aftershock::ledger
