// SlicedWake: when the dispatcher next wakes while it waits for a time `due`, given
// RunnerOptions::wake_slice.
//
// Internal to the load runner. On a virtual machine a CPU that idles for longer than its
// hypervisor's halt-polling window (about 100-200 us here) is handed back to the host, and getting
// it back takes the host's scheduler: a 1 ms sleep woke more than 1 ms late for 1-2 % of sleeps on
// this project's 2-core VM, even at real-time priority (bench/sleep_lateness), while sleeps of
// 100 us woke within 100 us at p99. So with a slice the dispatcher waits in steps of at most that
// long; the last step goes straight to `due`. A wait of up to two slices is one sleep. Each extra
// wake-up costs CPU (on that VM ~10 us: 1000 arrivals/s with a 100 us slice used 10 % more of a
// core), so the slice is off by default.
//
//   const Clock::time_point wake = SlicedWake(Clock::now(), target + window, options.wake_slice);
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_WAKE_SLICE_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_WAKE_SLICE_H_

#include <chrono>

#include "framework/common/run_clock.h"

namespace aftershock::load::internal {

// `slice` <= 0: no slicing, `due` itself.
inline Clock::time_point SlicedWake(Clock::time_point now, Clock::time_point due, std::chrono::microseconds slice) {
  if (slice <= std::chrono::microseconds::zero() || due - now <= 2 * slice) return due;
  return now + slice;
}

}  // namespace aftershock::load::internal

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_WAKE_SLICE_H_
