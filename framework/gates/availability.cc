#include "framework/gates/availability.h"

#include <algorithm>

namespace aftershock::gates {
namespace {

bool Recovered(const metrics::SecondBucket& b, double ratio) {
  return b.offered > 0 && static_cast<double>(b.ok) / static_cast<double>(b.offered) >= ratio;
}

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
  const auto& seconds = timeline.seconds();
  const std::int64_t size = static_cast<std::int64_t>(seconds.size());
  const std::int64_t stable = std::max(budgets.recovery_stable_seconds, 1);
  std::int64_t run = 0;
  for (std::int64_t s = std::max<std::int64_t>(fault.end_second, 0); s < size; ++s) {
    run = Recovered(seconds[s], budgets.recovery_success_ratio) ? run + 1 : 0;
    if (run == stable) return static_cast<double>(s - stable + 1 - fault.end_second);
  }
  return std::nullopt;
}

}  // namespace aftershock::gates
