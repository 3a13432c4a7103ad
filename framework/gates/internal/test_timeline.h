// MakeTimeline: builds a LoadTimeline from per-second counts, for the gates' tests.
//
//   LoadTimeline t = MakeTimeline({{100, 100}, {100, 0, 100}, {100, 40, 10, 50}});  // offered, ok, failed, shed
//
// Arrivals and successes are spread evenly over each second, so the sub-second figures (longest gap,
// time to recover in ms) have completion times to work on.
#ifndef AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TEST_TIMELINE_H_
#define AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TEST_TIMELINE_H_

#include <cstdint>
#include <vector>

#include "framework/metrics/load_timeline.h"

namespace aftershock::gates::internal {

inline constexpr std::uint64_t kNsPerSecond = 1'000'000'000;

struct SecondCounts {
  std::uint64_t offered = 0;
  std::uint64_t ok = 0;
  std::uint64_t failed = 0;
  std::uint64_t shed = 0;
};

inline metrics::LoadTimeline MakeTimeline(const std::vector<SecondCounts>& seconds) {
  metrics::LoadTimeline timeline;
  for (std::size_t s = 0; s < seconds.size(); ++s) {
    metrics::SecondBucket& b = timeline.At(static_cast<std::int64_t>(s));
    b.offered = seconds[s].offered;
    b.ok = seconds[s].ok;
    b.failed = seconds[s].failed;
    b.shed = seconds[s].shed;
    // Instant answers spread evenly over their intended second (so sub-second gaps are meaningful):
    // arrival i of n at s + i/n, success i of k completing at s + i/k.
    const std::int64_t start = static_cast<std::int64_t>(s) * kNsPerSecond;
    const std::uint64_t n = seconds[s].offered, k = seconds[s].ok;
    if (n > 0) {
      timeline.RecordOffered(start);
      timeline.RecordOffered(start + static_cast<std::int64_t>((n - 1) * kNsPerSecond / n));
    }
    if (k > 0) timeline.At(static_cast<std::int64_t>(s)).first_ok_of_intended_ns = start;
    // Every success answered in 5 ms (latency-p99's figure).
    timeline.At(static_cast<std::int64_t>(s)).ok_latency.Record(5'000'000, k);
    for (std::uint64_t i = 0; i < k; ++i) timeline.RecordOkCompletion(start + static_cast<std::int64_t>(i * kNsPerSecond / k));
  }
  return timeline;
}

// `n` seconds of `offered` calls each, all successful.
inline std::vector<SecondCounts> Healthy(std::size_t n, std::uint64_t offered = 100) {
  return std::vector<SecondCounts>(n, SecondCounts{offered, offered, 0, 0});
}

}  // namespace aftershock::gates::internal

#endif  // AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TEST_TIMELINE_H_
