#include "framework/ledger/read_then_reissue_verifier.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace aftershock::ledger {
namespace {

using Deadline = ReadThenReissueVerifier::Deadline;

// A pseudonym service whose Create assigns a fresh pseudonym to unknown originals (so a re-issue
// after a lost mapping would "repair" it), with a call log to prove the order.
struct FakeService {
  std::map<std::string, std::string> by_original;
  std::map<std::string, std::string> by_pseudonym;
  std::vector<std::string> log;
  bool get_fails = false;
  bool create_fails = false;
  int next = 100;

  ReadBackResult Get(const std::string& pseudonym) {
    log.push_back("Get " + pseudonym);
    if (get_fails) return {ReadBackResult::kError, "", "UNAVAILABLE"};
    auto it = by_pseudonym.find(pseudonym);
    if (it == by_pseudonym.end()) return {ReadBackResult::kNotFound, "", ""};
    return {ReadBackResult::kFound, it->second, ""};
  }
  ReissueResult Create(const std::string& original) {
    log.push_back("Create " + original);
    if (create_fails) return {false, "", "DEADLINE_EXCEEDED"};
    auto it = by_original.find(original);
    if (it != by_original.end()) return {true, it->second, ""};
    const std::string p = "p-" + std::to_string(next++);
    by_original[original] = p;
    by_pseudonym[p] = original;
    return {true, p, ""};
  }
};

ReadThenReissueVerifier MakeVerifier(FakeService& s) {
  return ReadThenReissueVerifier([&s](const std::string& v, Deadline) { return s.Get(v); },
                                 [&s](const std::string& k, Deadline) { return s.Create(k); },
                                 [&s](const IndeterminatePromise& p, Deadline) {
                                   return IndeterminateCheck{s.by_original.count(p.key)
                                                                 ? IndeterminateCheck::kCommitted
                                                                 : IndeterminateCheck::kNotCommitted};
                                 });
}

TEST(ReadThenReissueVerifierTest, ReadsBeforeItWrites) {
  FakeService s;
  s.by_original["alice"] = "p-1";
  s.by_pseudonym["p-1"] = "alice";
  ReadThenReissueVerifier v = MakeVerifier(s);
  const PromiseCheck c = v.Check({"alice", "p-1", 1}, {});
  EXPECT_EQ(c.lookup, PromiseCheck::Lookup::kHeld);
  EXPECT_EQ(c.stability, PromiseCheck::Stability::kHeld);
  EXPECT_EQ(s.log, (std::vector<std::string>{"Get p-1", "Create alice"}));
}

TEST(ReadThenReissueVerifierTest, ReissueCannotRepairALostMapping) {
  FakeService s;  // the acknowledged alice -> p-1 was lost entirely
  ReadThenReissueVerifier v = MakeVerifier(s);
  const PromiseCheck c = v.Check({"alice", "p-1", 1}, {});
  EXPECT_EQ(c.lookup, PromiseCheck::Lookup::kNotFound);
  EXPECT_EQ(c.stability, PromiseCheck::Stability::kChanged);
  EXPECT_EQ(c.observed_value, "p-100");
  EXPECT_EQ(s.log, (std::vector<std::string>{"Get p-1", "Create alice"}));
}

TEST(ReadThenReissueVerifierTest, WrongKeyIsReported) {
  FakeService s;
  s.by_original["alice"] = "p-1";
  s.by_pseudonym["p-1"] = "mallory";
  ReadThenReissueVerifier v = MakeVerifier(s);
  const PromiseCheck c = v.Check({"alice", "p-1", 1}, {});
  EXPECT_EQ(c.lookup, PromiseCheck::Lookup::kWrongKey);
  EXPECT_EQ(c.observed_key, "mallory");
  EXPECT_EQ(c.stability, PromiseCheck::Stability::kHeld);
}

TEST(ReadThenReissueVerifierTest, ReadErrorSkipsTheReissue) {
  FakeService s;
  s.get_fails = true;
  ReadThenReissueVerifier v = MakeVerifier(s);
  const PromiseCheck c = v.Check({"alice", "p-1", 1}, {});
  EXPECT_EQ(c.lookup, PromiseCheck::Lookup::kError);
  EXPECT_EQ(c.stability, PromiseCheck::Stability::kError);
  EXPECT_EQ(c.error, "read-back: UNAVAILABLE (re-issue skipped)");
  EXPECT_EQ(s.log, (std::vector<std::string>{"Get p-1"}));
}

TEST(ReadThenReissueVerifierTest, ReissueErrorKeepsTheLookupVerdict) {
  FakeService s;
  s.create_fails = true;
  ReadThenReissueVerifier v = MakeVerifier(s);
  const PromiseCheck c = v.Check({"alice", "p-1", 1}, {});
  EXPECT_EQ(c.lookup, PromiseCheck::Lookup::kNotFound);
  EXPECT_EQ(c.stability, PromiseCheck::Stability::kError);
  EXPECT_EQ(c.error, "re-issue: DEADLINE_EXCEEDED");
}

TEST(ReadThenReissueVerifierTest, ProbeUsesTheGivenFunctionOrUnknown) {
  FakeService s;
  s.by_original["bob"] = "p-2";
  ReadThenReissueVerifier v = MakeVerifier(s);
  EXPECT_EQ(v.Probe({"bob", 1, kCodeDeadlineExceeded}, {}).result, IndeterminateCheck::kCommitted);
  EXPECT_EQ(v.Probe({"carol", 1, kCodeDeadlineExceeded}, {}).result, IndeterminateCheck::kNotCommitted);
  ReadThenReissueVerifier no_probe([&s](const std::string& x, Deadline) { return s.Get(x); },
                                   [&s](const std::string& x, Deadline) { return s.Create(x); });
  EXPECT_EQ(no_probe.Probe({"bob", 1, kCodeDeadlineExceeded}, {}).result, IndeterminateCheck::kUnknown);
}

}  // namespace
}  // namespace aftershock::ledger
