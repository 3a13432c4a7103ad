// latency-p99 and retry-amplification: red on the fault each exists for (a slow service, retries that
// hide first-attempt failures), green on a healthy run, N/A only with a reason.
#include "framework/gates/latency_retry_gates.h"

#include <string>

#include "framework/gates/gates.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::gates {
namespace latency_retry_gates_test {

using ::testing::HasSubstr;

constexpr std::int64_t kMs = 1'000'000;

// `seconds` seconds of `rate` calls each, every one ok after `latency_ms`.
metrics::LoadTimeline Answered(int seconds, int rate, double latency_ms) {
  metrics::LoadTimeline t;
  for (int s = 0; s < seconds; ++s) {
    metrics::SecondBucket& b = t.At(s);
    b.offered = static_cast<std::uint64_t>(rate);
    b.ok = static_cast<std::uint64_t>(rate);
    b.latency.Record(static_cast<std::int64_t>(latency_ms * kMs), static_cast<std::uint64_t>(rate));
    b.ok_latency.Record(static_cast<std::int64_t>(latency_ms * kMs), static_cast<std::uint64_t>(rate));
  }
  return t;
}

GateResult Evaluate(const std::unique_ptr<Gate>& gate, const GateInputs& in) {
  GateResult r = gate->Evaluate(in);
  r.name = std::string(gate->name());
  return r;
}

double Figure(const GateResult& r, const std::string& name) {
  for (const auto& [n, v] : r.figures) {
    if (n == name) return v;
  }
  ADD_FAILURE() << "no figure " << name << " in " << r.name;
  return -1;
}

TEST(LatencyP99Gate, AServiceThatAnswersEveryCallIn4SecondsIsRed) {
  const metrics::LoadTimeline t = Answered(10, 20, 4000);
  GateInputs in;
  in.timeline = &t;
  in.budgets.max_latency_p99_seconds = 0.5;
  const GateResult r = Evaluate(LatencyP99Gate(), in);
  EXPECT_FALSE(r.passed);
  EXPECT_FALSE(r.not_applicable);
  EXPECT_THAT(r.message, HasSubstr("> 500 ms budget over 200 successful calls"));
  EXPECT_NEAR(Figure(r, "ok_latency_p99_ms"), 4000, 4000 * 0.004);
}

TEST(LatencyP99Gate, AFastServiceIsGreen) {
  const metrics::LoadTimeline t = Answered(10, 20, 3);
  GateInputs in;
  in.timeline = &t;
  in.budgets.max_latency_p99_seconds = 0.5;
  const GateResult r = Evaluate(LatencyP99Gate(), in);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_FALSE(r.not_applicable);
  EXPECT_THAT(r.message, HasSubstr("<= 500 ms budget"));
}

TEST(LatencyP99Gate, FailedCallsAreNotItsToJudge) {
  metrics::LoadTimeline t = Answered(10, 20, 3);
  t.At(3).latency.Record(5000 * kMs, 50);  // deadline failures: P1's
  t.At(3).failed = 50;
  GateInputs in;
  in.timeline = &t;
  in.budgets.max_latency_p99_seconds = 0.5;
  EXPECT_TRUE(Evaluate(LatencyP99Gate(), in).passed);
}

TEST(LatencyP99Gate, NothingSucceededUnderABudgetIsRedNotGreen) {
  metrics::LoadTimeline t;
  t.At(0).offered = 10;
  t.At(0).failed = 10;
  GateInputs in;
  in.timeline = &t;
  in.budgets.max_latency_p99_seconds = 0.5;
  const GateResult r = Evaluate(LatencyP99Gate(), in);
  EXPECT_FALSE(r.passed);
  EXPECT_THAT(r.message, HasSubstr("nothing was measured"));
}

TEST(LatencyP99Gate, NotApplicableOnlyWithAReasonOrWithoutABudget) {
  const metrics::LoadTimeline t = Answered(2, 5, 4000);
  GateInputs in;
  in.timeline = &t;
  in.latency_not_judged = "a failover's successes after retries take up to the deadline";
  GateResult r = Evaluate(LatencyP99Gate(), in);
  EXPECT_TRUE(r.not_applicable);
  EXPECT_THAT(r.message, HasSubstr("latency not judged: a failover's"));
  in.latency_not_judged.clear();
  r = Evaluate(LatencyP99Gate(), in);
  EXPECT_TRUE(r.not_applicable);
  EXPECT_THAT(r.message, HasSubstr("no latency budget was given (max_latency_p99_seconds)"));
}

TEST(RetryAmplificationGate, HalfTheFirstAttemptsFailingBehindRetriesIsRed) {
  metrics::LoadTimeline t = Answered(10, 20, 30);  // every call finally ok: P1 sees nothing
  for (int s = 0; s < 10; ++s) {
    t.At(s).retries = 10;
    t.At(s).first_attempt_failed = 10;
  }
  GateInputs in;
  in.timeline = &t;
  const GateResult r = Evaluate(RetryAmplificationGate(), in);  // default budget 0.05
  EXPECT_FALSE(r.passed);
  EXPECT_THAT(r.message, HasSubstr("0.5 retries per offered call > 0.05 budget (100 retries for 200 offered)"));
  EXPECT_THAT(r.message, HasSubstr("first attempts failed for 50 % of 200 issued calls"));
  EXPECT_DOUBLE_EQ(Figure(r, "first_attempt_failure_ratio"), 0.5);
}

TEST(RetryAmplificationGate, NoRetriesIsGreenAndADeclaredBudgetIsHonoured) {
  metrics::LoadTimeline t = Answered(10, 20, 3);
  GateInputs in;
  in.timeline = &t;
  GateResult r = Evaluate(RetryAmplificationGate(), in);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_FALSE(r.not_applicable);
  t.At(0).retries = 40;  // 0.2 per call: a failover's share, under a declared 0.3
  in.budgets.max_retries_per_call = 0.3;
  r = Evaluate(RetryAmplificationGate(), in);
  EXPECT_TRUE(r.passed) << r.message;
  in.budgets.max_retries_per_call = 0.1;
  EXPECT_FALSE(Evaluate(RetryAmplificationGate(), in).passed);
}

TEST(BuiltInGates, JudgeLatencyAndRetriesAfterTheP1Gates) {
  const std::vector<std::string> names = BuiltInGates().names();
  const auto at = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  EXPECT_EQ(at("latency-p99"), at("time-to-recover") + 1);
  EXPECT_EQ(at("retry-amplification"), at("latency-p99") + 1);
}

}  // namespace latency_retry_gates_test
}  // namespace aftershock::gates
