#include "framework/stress/breaker_gates.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "framework/metrics/latency_histogram.h"
#include "framework/stress/internal/format.h"
#include "framework/stress/internal/gate_results.h"
#include "framework/stress/internal/scrape_coverage.h"

namespace aftershock::stress {
namespace {

using internal::Red;

constexpr double kNsPerSecond = 1e9;

std::string Seconds(double s) { return internal::Fixed(s, 1) + " s"; }
std::string Millis(double ms) { return internal::Fixed(ms, 1) + " ms"; }

// The first sample at or after `from_ns` (and before `to_ns`) whose state is not closed.
std::optional<std::int64_t> FirstTrip(const std::vector<MetricSample>& state, std::int64_t from_ns, std::int64_t to_ns) {
  for (const MetricSample& s : state) {
    if (s.offset_ns >= from_ns && s.offset_ns < to_ns && s.value != kBreakerClosed) return s.offset_ns;
  }
  return std::nullopt;
}

bool AnySampleIn(const std::vector<MetricSample>& state, std::int64_t from_ns, std::int64_t to_ns) {
  for (const MetricSample& s : state) {
    if (s.offset_ns >= from_ns && s.offset_ns < to_ns) return true;
  }
  return false;
}

gates::GateResult Trips(const BreakerObservation& o, const BreakerBudgets& b, std::optional<std::int64_t> trip) {
  if (!AnySampleIn(o.state, o.dead_from_ns, o.dead_to_ns)) {
    return Red(kBreakerTrips, "no breaker state was sampled while the upstream was dead");
  }
  if (!trip) {
    gates::GateResult r = Red(kBreakerTrips, "the breaker never left closed while the upstream was dead (" +
                                                 Seconds((o.dead_to_ns - o.dead_from_ns) / kNsPerSecond) +
                                                 "): every call still went to the dead upstream");
    r.figures = {{"breaker_trip_seconds", -1}, {"breaker_trip_budget_seconds", b.trip_within_seconds}};
    return internal::DeclareStressFigures(r);
  }
  const double after = (*trip - o.dead_from_ns) / kNsPerSecond;
  gates::GateResult r{.name = std::string(kBreakerTrips), .passed = after <= b.trip_within_seconds, .message = {},
                      .figures = {{"breaker_trip_seconds", after}, {"breaker_trip_budget_seconds", b.trip_within_seconds}}};
  r.message = "the breaker opened " + Seconds(after) + " after the upstream died" +
              (r.passed ? " (budget " : ", later than the budget of ") + Seconds(b.trip_within_seconds) +
              (r.passed ? ")" : "");
  return internal::DeclareStressFigures(r);
}

gates::GateResult FailsFast(const BreakerObservation& o, const BreakerBudgets& b, std::optional<std::int64_t> trip) {
  if (!AnySampleIn(o.state, o.dead_from_ns, o.dead_to_ns)) {
    return Red(kBreakerFailsFast, "no breaker state was sampled while the upstream was dead");
  }
  const std::int64_t from_ns = trip ? *trip : o.dead_from_ns + static_cast<std::int64_t>(b.trip_within_seconds * kNsPerSecond);
  // Whole seconds inside [from, dead_to): a second that straddles the trip mixes both regimes.
  const auto first = static_cast<std::int64_t>(std::ceil(from_ns / kNsPerSecond));
  const auto last = static_cast<std::int64_t>(std::floor(o.dead_to_ns / kNsPerSecond));  // exclusive
  metrics::LatencyHistogram latency;
  for (std::int64_t s = first; s < last && s < o.timeline->size(); ++s) {
    latency.Merge(o.timeline->seconds()[static_cast<std::size_t>(s)].latency);
  }
  if (latency.empty()) {
    return Red(kBreakerFailsFast, "nothing was measured: no call completed in a whole second between " +
                                      Seconds(from_ns / kNsPerSecond) + " and " + Seconds(o.dead_to_ns / kNsPerSecond));
  }
  const double p99 = latency.ValueAtPercentile(99) / 1e6;
  gates::GateResult r{.name = std::string(kBreakerFailsFast), .passed = p99 <= b.fail_fast_p99_ms, .message = {},
                      .figures = {{"breaker_open_p99_ms", p99}, {"breaker_open_p99_budget_ms", b.fail_fast_p99_ms}}};
  r.message = std::string(trip ? "while open" : "with the breaker never open") + ", p99 " + Millis(p99) +
              (r.passed ? " <= " : " > ") + Millis(b.fail_fast_p99_ms) + " over " +
              std::to_string(latency.Count()) + " calls in seconds " + std::to_string(first) + ".." +
              std::to_string(last - 1);
  return internal::DeclareStressFigures(r);
}

gates::GateResult Closes(const BreakerObservation& o, const BreakerBudgets& b) {
  // The start of the final closed run: the first closed sample after the recovery from which every
  // later sample is closed.
  std::int64_t closed_from = -1;  // -1: not closed (no optional: GCC 12 warns on it here)
  bool any_after = false;
  for (const MetricSample& s : o.state) {
    if (s.offset_ns < o.dead_to_ns) continue;
    any_after = true;
    if (s.value == kBreakerClosed) {
      if (closed_from < 0) closed_from = s.offset_ns;
    } else {
      closed_from = -1;
    }
  }
  if (!any_after) return Red(kBreakerCloses, "no breaker state was sampled after the upstream recovered");
  const double sampled = (o.state.back().offset_ns - o.dead_to_ns) / kNsPerSecond;
  if (closed_from < 0) {
    gates::GateResult r = Red(kBreakerCloses, "the breaker was still not closed " + Seconds(sampled) +
                                                  " after the upstream recovered (budget " +
                                                  Seconds(b.close_within_seconds) + "): users stayed on the fallback");
    r.figures = {{"breaker_close_seconds", -1}, {"breaker_close_budget_seconds", b.close_within_seconds}};
    return internal::DeclareStressFigures(r);
  }
  const double after = (closed_from - o.dead_to_ns) / kNsPerSecond;
  gates::GateResult r{.name = std::string(kBreakerCloses), .passed = after <= b.close_within_seconds, .message = {},
                      .figures = {{"breaker_close_seconds", after}, {"breaker_close_budget_seconds", b.close_within_seconds}}};
  r.message = "the breaker closed " + Seconds(after) + " after the upstream recovered and stayed closed" +
              (r.passed ? " (budget " : ", later than the budget of ") + Seconds(b.close_within_seconds) +
              (r.passed ? ")" : "");
  return internal::DeclareStressFigures(r);
}

}  // namespace

std::vector<gates::GateResult> EvaluateBreakerGates(const BreakerObservation& o, const BreakerBudgets& b) {
  if (o.dead_from_ns < 0 || o.dead_to_ns <= o.dead_from_ns) {
    throw std::invalid_argument("EvaluateBreakerGates: the upstream's dead window must be 0 <= from < to");
  }
  if (o.timeline == nullptr) throw std::invalid_argument("EvaluateBreakerGates: no load timeline");
  if (!(b.trip_within_seconds > 0) || !(b.fail_fast_p99_ms > 0) || !(b.close_within_seconds > 0)) {
    throw std::invalid_argument("EvaluateBreakerGates: every budget must be > 0");
  }
  const std::optional<std::int64_t> trip = FirstTrip(o.state, o.dead_from_ns, o.dead_to_ns);
  std::vector<gates::GateResult> results = {Trips(o, b, trip), FailsFast(o, b, trip), Closes(o, b)};
  for (gates::GateResult& r : results) {
    internal::JudgeScrapeCoverage(r, o.coverage, b.max_failed_poll_ratio, "the breaker's state");
  }
  return results;
}

}  // namespace aftershock::stress
