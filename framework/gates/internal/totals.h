// Totals: a timeline's offered / ok / failed / shed summed over every second, for the gates that
// judge the whole run (traffic-served, shed-outweighs-failures).
//
//   const internal::Totals t = internal::Sum(timeline);  // t.ok > 0: traffic was served
#ifndef AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TOTALS_H_
#define AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TOTALS_H_

#include <cstdint>

#include "framework/metrics/load_timeline.h"

namespace aftershock::gates::internal {

struct Totals {
  std::uint64_t offered = 0;
  std::uint64_t ok = 0;
  std::uint64_t failed = 0;
  std::uint64_t shed = 0;
};

inline Totals Sum(const metrics::LoadTimeline* timeline) {
  Totals t;
  if (timeline == nullptr) return t;  // null counts as an empty timeline
  for (const metrics::SecondBucket& b : timeline->seconds()) {
    t.offered += b.offered;
    t.ok += b.ok;
    t.failed += b.failed;
    t.shed += b.shed;
  }
  return t;
}

inline double D(std::uint64_t v) { return static_cast<double>(v); }

// Violations named in a gate message before "and N more".
inline constexpr std::size_t kMaxNamedViolations = 10;

}  // namespace aftershock::gates::internal

#endif  // AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TOTALS_H_
