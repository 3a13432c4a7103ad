// The SLO gates: green when the declared objectives hold, red when they do not, red (never green)
// when nothing was measured, and only the judged stages count.
#include "framework/gates/slo_gates.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace aftershock::gates {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// `seconds` seconds of stage `stage`, each with `ok` successes at `ok_ms` and `failed` failures at
// `failed_ms`.
void AddSeconds(metrics::LoadTimeline& t, const std::string& stage, int seconds, std::uint64_t ok, double ok_ms,
                std::uint64_t failed = 0, double failed_ms = 0) {
  const std::int64_t first = t.size();
  for (std::int64_t s = first; s < first + seconds; ++s) {
    metrics::SecondBucket& b = t.At(s);
    b.stage = stage;
    b.offered = ok + failed;
    b.ok = ok;
    b.failed = failed;
    b.latency.Record(static_cast<std::int64_t>(ok_ms * kMs), ok);
    if (failed > 0) b.latency.Record(static_cast<std::int64_t>(failed_ms * kMs), failed);
  }
}

config::SloSpec Slo(double ratio, double p99_seconds) {
  config::SloSpec slo;
  slo.success_ratio = ratio;
  slo.latency = {{"p99", 99, p99_seconds}};
  return slo;
}

const GateResult& SloGateNamed(const std::vector<GateResult>& results, const std::string& name) {
  for (const GateResult& r : results) {
    if (r.name == name) return r;
  }
  static const GateResult missing{.name = "<missing>", .passed = false, .message = "no such gate", .figures = {}};
  ADD_FAILURE() << "no gate " << name;
  return missing;
}

TEST(SloGatesTest, AHealthyRunMeetsItsObjectives) {
  metrics::LoadTimeline t;
  AddSeconds(t, "load", 10, 100, 20);
  const auto results = EvaluateSloGates(Slo(0.99, 0.8), t);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(SloGateNamed(results, "slo-success-ratio").passed) << SloGateNamed(results, "slo-success-ratio").message;
  const GateResult& p99 = SloGateNamed(results, "slo-latency-p99");
  EXPECT_TRUE(p99.passed) << p99.message;
  EXPECT_FALSE(p99.not_applicable);
  EXPECT_EQ(SloGateNamed(results, "slo-success-ratio").message,
            "success 100 % >= 99 % in the run (1000 of 1000 calls; 0 failed, 0 shed by the generator)");
}

TEST(SloGatesTest, TooManyFailuresTurnTheSuccessRatioRed) {
  metrics::LoadTimeline t;
  AddSeconds(t, "load", 10, 98, 20, 2, 30);  // 98 %
  const auto results = EvaluateSloGates(Slo(0.99, 0.8), t);
  const GateResult& r = SloGateNamed(results, "slo-success-ratio");
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.message, "success 98 % < 99 % in the run (980 of 1000 calls; 20 failed, 0 shed by the generator)");
}

TEST(SloGatesTest, TheGeneratorsShedsAreNotSuccesses) {
  metrics::LoadTimeline t;
  AddSeconds(t, "load", 10, 100, 20);
  t.At(3).shed = 50;
  const auto results = EvaluateSloGates(Slo(0.99, 0.8), t);
  EXPECT_FALSE(SloGateNamed(results, "slo-success-ratio").passed);
}

TEST(SloGatesTest, ASlowTailTurnsTheLatencyGateRed) {
  metrics::LoadTimeline t;
  AddSeconds(t, "load", 10, 97, 20, 3, 6000);  // 3 % of the calls wait out a 6 s upstream
  const auto results = EvaluateSloGates(Slo(0.9, 0.8), t);
  const GateResult& r = SloGateNamed(results, "slo-latency-p99");
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.message.find("p99 "), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(" > 800 ms in the run"), std::string::npos) << r.message;
}

TEST(SloGatesTest, NothingMeasuredIsRedNotGreen) {
  metrics::LoadTimeline t;
  const auto results = EvaluateSloGates(Slo(0.99, 0.8), t);
  for (const GateResult& r : results) {
    EXPECT_FALSE(r.passed) << r.name;
    EXPECT_FALSE(r.not_applicable) << r.name;
    EXPECT_NE(r.message.find("nothing was measured"), std::string::npos) << r.message;
  }
}

TEST(SloGatesTest, OnlyTheJudgedStagesCount) {
  metrics::LoadTimeline t;
  AddSeconds(t, "warm-up", 3, 10, 900, 10, 900);  // a cold cache: slow and failing
  AddSeconds(t, "steady", 10, 100, 20);
  config::SloSpec slo = Slo(0.99, 0.4);
  EXPECT_FALSE(AllPassed(EvaluateSloGates(slo, t)));
  slo.stages = {"steady"};
  const auto results = EvaluateSloGates(slo, t);
  EXPECT_TRUE(AllPassed(results)) << FormatGateReport(results);
  EXPECT_NE(SloGateNamed(results, "slo-latency-p99").message.find("in stage steady"), std::string::npos);
}

TEST(SloGatesTest, OneGatePerPercentileNamedAfterIt) {
  metrics::LoadTimeline t;
  AddSeconds(t, "load", 2, 100, 20);
  config::SloSpec slo;
  slo.latency = {{"p50", 50, 0.01}, {"p99.9", 99.9, 1}};
  const auto results = EvaluateSloGates(slo, t);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].name, "slo-latency-p50");
  EXPECT_FALSE(results[0].passed);  // 20 ms > 10 ms
  EXPECT_EQ(results[1].name, "slo-latency-p99-9");
  EXPECT_TRUE(results[1].passed);
  bool has_figure = false;
  for (const auto& [name, value] : results[1].figures) has_figure |= name == "slo_p99_9_ms";
  EXPECT_TRUE(has_figure);
}

}  // namespace
}  // namespace aftershock::gates
