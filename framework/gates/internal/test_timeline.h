// MakeTimeline: builds a LoadTimeline from per-second counts, for the gates' tests.
//
//   LoadTimeline t = MakeTimeline({{100, 100}, {100, 0, 100}, {100, 40, 10, 50}});  // offered, ok, failed, shed
#ifndef AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TEST_TIMELINE_H_
#define AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TEST_TIMELINE_H_

#include <cstdint>
#include <vector>

#include "framework/metrics/load_timeline.h"

namespace aftershock::gates::internal {

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
    b.ok_completed = seconds[s].ok;  // instant answers: completed in their intended second
    b.failed = seconds[s].failed;
    b.shed = seconds[s].shed;
  }
  return timeline;
}

// `n` seconds of `offered` calls each, all successful.
inline std::vector<SecondCounts> Healthy(std::size_t n, std::uint64_t offered = 100) {
  return std::vector<SecondCounts>(n, SecondCounts{offered, offered, 0, 0});
}

}  // namespace aftershock::gates::internal

#endif  // AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TEST_TIMELINE_H_
