// The breaker gates: green for a breaker that trips, fails fast and closes after the recovery; each
// red on the defect it exists for (no breaker, a slow open path, a cooldown far too long), and red
// when no state was sampled.
#include "framework/stress/breaker_gates.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "framework/stress/internal/test_units.h"

namespace aftershock::stress {
namespace {

using internal::kS;

// A timeline of `seconds` seconds with 50 calls per second at `ms_of(second)` ms.
template <class LatencyOf>
metrics::LoadTimeline Timeline(int seconds, LatencyOf ms_of) {
  metrics::LoadTimeline t;
  for (int s = 0; s < seconds; ++s) {
    metrics::SecondBucket& b = t.At(s);
    b.ok = 50;
    b.latency.Record(static_cast<std::int64_t>(ms_of(s) * 1e6), 50);
  }
  return t;
}

// A state sampled every 500 ms for `seconds`: state_of(second as double).
template <class StateOf>
std::vector<MetricSample> States(int seconds, StateOf state_of) {
  std::vector<MetricSample> out;
  for (int i = 0; i < seconds * 2; ++i) out.push_back({i * kS / 2, state_of(i / 2.0)});
  return out;
}

// The upstream is dead from 10 s to 30 s of a 50 s run.
BreakerObservation Observe(const std::vector<MetricSample>& state, const metrics::LoadTimeline& t) {
  return {.state = state, .dead_from_ns = 10 * kS, .dead_to_ns = 30 * kS, .timeline = &t};
}

TEST(BreakerGatesTest, AHealthyBreakerTripsFailsFastAndCloses) {
  const auto t = Timeline(50, [](int s) { return s >= 10 && s < 12 ? 150.0 : 5.0; });
  const auto state = States(50, [](double s) { return s >= 11.5 && s < 34 ? kBreakerOpen : kBreakerClosed; });
  const auto r = EvaluateBreakerGates(Observe(state, t), BreakerBudgets{});
  ASSERT_EQ(r.size(), 3u);
  for (const auto& g : r) EXPECT_TRUE(g.passed) << g.name << ": " << g.message;
  EXPECT_EQ(r[0].message, "the breaker opened 1.5 s after the upstream died (budget 5.0 s)");
  EXPECT_EQ(r[2].message, "the breaker closed 4.0 s after the upstream recovered and stayed closed (budget 10.0 s)");
}

TEST(BreakerGatesTest, NoBreakerNeverTripsAndIsSlow) {
  const auto t = Timeline(50, [](int s) { return s >= 10 && s < 30 ? 900.0 : 5.0; });  // every call waits
  const auto state = States(50, [](double) { return kBreakerClosed; });
  const auto r = EvaluateBreakerGates(Observe(state, t), BreakerBudgets{});
  EXPECT_FALSE(r[0].passed);
  EXPECT_EQ(r[0].message, "the breaker never left closed while the upstream was dead (20.0 s): every call still "
                          "went to the dead upstream");
  EXPECT_FALSE(r[1].passed) << r[1].message;
  EXPECT_NE(r[1].message.find("with the breaker never open"), std::string::npos);
}

TEST(BreakerGatesTest, ASlowOpenPathTurnsFailsFastRed) {
  const auto t = Timeline(50, [](int s) { return s >= 12 && s < 30 ? 700.0 : 5.0; });
  const auto state = States(50, [](double s) { return s >= 11 && s < 32 ? kBreakerOpen : kBreakerClosed; });
  const auto r = EvaluateBreakerGates(Observe(state, t), BreakerBudgets{});
  EXPECT_TRUE(r[0].passed);
  EXPECT_FALSE(r[1].passed);
  EXPECT_EQ(r[1].message.find("while open, p99 "), 0u) << r[1].message;
  EXPECT_TRUE(r[2].passed);
}

TEST(BreakerGatesTest, ACooldownFarTooLongTurnsClosesRed) {
  const auto t = Timeline(50, [](int) { return 5.0; });
  const auto state = States(50, [](double s) { return s >= 11 ? kBreakerOpen : kBreakerClosed; });  // never closes
  const auto r = EvaluateBreakerGates(Observe(state, t), BreakerBudgets{});
  EXPECT_FALSE(r[2].passed);
  EXPECT_EQ(r[2].message, "the breaker was still not closed 19.5 s after the upstream recovered (budget 10.0 s): "
                          "users stayed on the fallback");
  // Closing late (after 15 s) is red too; reopening after closing resets the closed run.
  const auto late = States(50, [](double s) { return s >= 11 && s < 45 ? kBreakerOpen : kBreakerClosed; });
  EXPECT_FALSE(EvaluateBreakerGates(Observe(late, t), BreakerBudgets{})[2].passed);
  const auto flap = States(50, [](double s) { return (s >= 11 && s < 32) || (s >= 40 && s < 42) ? kBreakerHalfOpen : kBreakerClosed; });
  const auto flapped = EvaluateBreakerGates(Observe(flap, t), BreakerBudgets{});
  EXPECT_FALSE(flapped[2].passed) << flapped[2].message;  // closed for good only from 42 s: 12 s
}

TEST(BreakerGatesTest, NoSamplesAreRedNotGreen) {
  const auto t = Timeline(50, [](int) { return 5.0; });
  const auto r = EvaluateBreakerGates(Observe({}, t), BreakerBudgets{});
  for (const auto& g : r) EXPECT_FALSE(g.passed) << g.name;
  EXPECT_EQ(r[0].message, "no breaker state was sampled while the upstream was dead");
  EXPECT_EQ(r[2].message, "no breaker state was sampled after the upstream recovered");
}

TEST(BreakerGatesTest, AStateGaugeMostlyUnscrapedIsRedOnEveryGate) {
  const auto t = Timeline(50, [](int s) { return s >= 10 && s < 12 ? 150.0 : 5.0; });
  const auto state = States(50, [](double s) { return s >= 11.5 && s < 34 ? kBreakerOpen : kBreakerClosed; });
  BreakerObservation o = Observe(state, t);
  o.coverage = PollCoverage{.polls = 100, .failed = 30, .parse_errors = 0, .last_error = "answered 503"};
  for (const gates::GateResult& r : EvaluateBreakerGates(o, BreakerBudgets{})) {
    EXPECT_FALSE(r.passed) << r.name;
    EXPECT_EQ(r.message.rfind("30 of 100 polls of the breaker's state gave no sample (30 % > 5 % allowed)", 0), 0u)
        << r.message;
  }
  o.coverage = PollCoverage{.polls = 100, .failed = 1, .parse_errors = 0, .last_error = {}};
  for (const gates::GateResult& r : EvaluateBreakerGates(o, BreakerBudgets{})) EXPECT_TRUE(r.passed) << r.name << r.message;
}

TEST(BreakerGatesTest, BadInputIsRefused) {
  const auto t = Timeline(5, [](int) { return 5.0; });
  BreakerObservation o{.state = {}, .dead_from_ns = 3 * kS, .dead_to_ns = 2 * kS, .timeline = &t};
  EXPECT_THROW(EvaluateBreakerGates(o, {}), std::invalid_argument);
  o.dead_to_ns = 4 * kS;
  o.timeline = nullptr;
  EXPECT_THROW(EvaluateBreakerGates(o, {}), std::invalid_argument);
  o.timeline = &t;
  EXPECT_THROW(EvaluateBreakerGates(o, BreakerBudgets{.trip_within_seconds = 0}), std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::stress
