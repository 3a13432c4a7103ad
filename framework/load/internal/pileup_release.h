// PileupRelease: tells the runner when a pile-up of calls in flight has drained, so that the memory
// the pile-up took can be handed back to the system.
//
// Internal to the load runner. Faults make calls pile up: a stalled server at 5000/s with a 2 s
// deadline holds 10,000 calls in flight, each with its call state, context and buffers. When they
// finish, glibc's malloc keeps their pages for later, so the generator's RSS stays at the highest
// pile-up of the run ever after (the soak benchmark saw a 100 ms stall step RSS up by 6-9 MiB for
// good). Once a pile-up has drained, the runner asks the allocator to return free pages
// (ReleaseFreeMemory: glibc's malloc_trim), which gives back the pile-up's memory and nothing that
// is still in use.
//
// A pile-up is a rise of at least `min_pileup` calls above the lowest in-flight count seen since the
// last release; it has drained when in flight is back within an eighth of that rise above the low.
// A ramp-up never drains, so it never triggers; a stage that drops from a high rate to a low one
// does, which is right (its memory is no longer needed). At most one release per `min_interval`.
//
//   PileupRelease release(256, std::chrono::seconds(1));
//   if (release.Observe(in_flight, Clock::now())) ReleaseFreeMemory();
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_PILEUP_RELEASE_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_PILEUP_RELEASE_H_

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "framework/common/run_clock.h"

namespace aftershock::load::internal {

class PileupRelease {
 public:
  // min_pileup <= 0: never.
  PileupRelease(std::int64_t min_pileup, Clock::duration min_interval)
      : min_pileup_(min_pileup), min_interval_(min_interval) {}

  // Called with the calls in flight at `now`; true once for each drained pile-up.
  bool Observe(std::int64_t in_flight, Clock::time_point now) {
    if (min_pileup_ <= 0) return false;
    low_ = std::min(low_, in_flight);
    peak_ = std::max(peak_, in_flight);
    const std::int64_t rise = peak_ - low_;
    if (rise < min_pileup_ || in_flight - low_ > rise / 8) return false;
    if (released_ && now - last_ < min_interval_) return false;
    released_ = true;
    last_ = now;
    low_ = peak_ = in_flight;
    return true;
  }

 private:
  std::int64_t min_pileup_;
  Clock::duration min_interval_;
  std::int64_t low_ = 0;  // nothing is in flight before the first call
  std::int64_t peak_ = 0;
  bool released_ = false;
  Clock::time_point last_{};  // of the last release, when released_
};

// Hands the allocator's free pages back to the system (glibc: malloc_trim(0), which also releases
// free pages inside its heaps, not only at their tops). Elsewhere: nothing. Returns whether it ran.
bool ReleaseFreeMemory();

}  // namespace aftershock::load::internal

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_PILEUP_RELEASE_H_
