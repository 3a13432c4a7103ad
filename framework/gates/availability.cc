#include "framework/gates/availability.h"

#include <algorithm>
#include <cmath>

namespace aftershock::gates {
namespace {

bool Recovered(const metrics::SecondBucket& b, double ratio) {
  return b.offered > 0 && static_cast<double>(b.ok) / static_cast<double>(b.offered) >= ratio;
}

// The first second >= from that starts a run of recovery_stable_seconds recovered seconds.
std::optional<std::int64_t> FirstStableSecond(const metrics::LoadTimeline& timeline, std::int64_t from,
                                              const GateBudgets& budgets) {
  const auto& seconds = timeline.seconds();
  const std::int64_t size = static_cast<std::int64_t>(seconds.size());
  const std::int64_t stable = std::max(budgets.recovery_stable_seconds, 1);
  std::int64_t run = 0;
  for (std::int64_t s = std::max<std::int64_t>(from, 0); s < size; ++s) {
    run = Recovered(seconds[s], budgets.recovery_success_ratio) ? run + 1 : 0;
    if (run == stable) return s - stable + 1;
  }
  return std::nullopt;
}

constexpr double kNsPerMs = 1e6;

}  // namespace

Outage LongestOutage(const metrics::LoadTimeline& timeline) {
  Outage longest;
  std::int64_t run_first = -1;
  std::int64_t run_length = 0;
  const auto& seconds = timeline.seconds();
  for (std::int64_t s = 0; s < static_cast<std::int64_t>(seconds.size()); ++s) {
    const metrics::SecondBucket& b = seconds[s];
    // Down = load was offered and nothing succeeded *in* that second (by completion time), so a
    // stall shows as the blackout it is even when the held calls succeed later within their deadline.
    if (b.offered > 0 && b.ok_completed == 0) {
      if (run_length == 0) run_first = s;
      ++run_length;
      if (run_length > longest.seconds) longest = Outage{run_first, run_length};
    } else {
      run_length = 0;
    }
  }
  return longest;
}

double UnavailableSeconds(const metrics::LoadTimeline& timeline) {
  double total = 0;
  for (const metrics::SecondBucket& b : timeline.seconds()) {
    if (b.offered == 0) continue;
    const double bad = static_cast<double>(b.failed + b.shed) / static_cast<double>(b.offered);
    total += std::clamp(bad, 0.0, 1.0);  // a second is at worst fully unavailable
  }
  return total;
}

std::optional<double> TimeToRecover(const metrics::LoadTimeline& timeline, const FaultWindow& fault,
                                    const GateBudgets& budgets) {
  const std::optional<std::int64_t> first = FirstStableSecond(timeline, fault.end_second, budgets);
  if (!first) return std::nullopt;
  return static_cast<double>(*first - fault.end_second);
}

SuccessGap LongestSuccessGap(const metrics::LoadTimeline& timeline) {
  SuccessGap longest;
  const std::int64_t begin = timeline.offered_begin_ns();
  if (begin < 0) return longest;  // nothing offered: no evidence of any gap
  auto consider = [&longest](std::int64_t from, std::int64_t to) {
    const double ms = static_cast<double>(to - from) / kNsPerMs;
    if (ms > longest.ms || longest.start_ms < 0) {
      longest = SuccessGap{std::max(ms, 0.0), static_cast<double>(from) / kNsPerMs};
    }
  };
  std::int64_t last = begin;  // the last success so far, or the start of offered load
  for (const metrics::SecondBucket& b : timeline.seconds()) {
    if (b.last_ok_completed_ns < 0) continue;
    if (b.first_ok_completed_ns > last) consider(last, b.first_ok_completed_ns);
    if (b.longest_ok_gap_ns > 0) consider(b.longest_ok_gap_end_ns - b.longest_ok_gap_ns, b.longest_ok_gap_end_ns);
    last = std::max(last, b.last_ok_completed_ns);
  }
  const std::int64_t end = timeline.offered_end_ns();
  if (end > last) consider(last, end);
  if (longest.start_ms < 0) longest = SuccessGap{0, static_cast<double>(begin) / kNsPerMs};
  return longest;
}

std::optional<double> TimeToRecoverMs(const metrics::LoadTimeline& timeline, double origin_ms,
                                      const GateBudgets& budgets) {
  const auto origin_second = static_cast<std::int64_t>(std::floor(origin_ms / 1000.0));
  const std::optional<std::int64_t> first = FirstStableSecond(timeline, origin_second, budgets);
  if (!first) return std::nullopt;
  const metrics::SecondBucket& b = timeline.seconds()[static_cast<std::size_t>(*first)];
  const double recovered_ms = b.first_ok_of_intended_ns >= 0
                                  ? static_cast<double>(b.first_ok_of_intended_ns) / kNsPerMs
                                  : static_cast<double>(*first) * 1000.0;
  return std::max(0.0, recovered_ms - origin_ms);
}

}  // namespace aftershock::gates
