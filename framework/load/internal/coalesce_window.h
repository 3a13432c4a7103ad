// CoalesceWindow: how much later than an arrival's intended time the dispatcher wakes to issue it,
// given RunnerOptions::dispatch_coalesce and when the arrival after it is due.
//
// Internal to the load runner. A window lets one wake-up issue every arrival that has come due by
// its end, which saves wake-ups only when the next arrival falls inside it. When the next arrival
// is due later than the window (a low rate: 1000/s is a 1 ms gap), waiting would add the window to
// this arrival's lag and save nothing, so the window is zero there. The last arrival of a run has
// no next one, and gets no window either. Arrivals are still never sent early, skipped or merged:
// this only chooses how late to wake.
//
//   const auto wake = target + CoalesceWindow(options.dispatch_coalesce, arrival.offset, next_offset);
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_COALESCE_WINDOW_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_COALESCE_WINDOW_H_

#include <chrono>
#include <optional>

namespace aftershock::load::internal {

// `offset` and `next_offset` are intended send times from the run's start; nullopt: no next arrival.
inline std::chrono::nanoseconds CoalesceWindow(std::chrono::microseconds window, std::chrono::nanoseconds offset,
                                               std::optional<std::chrono::nanoseconds> next_offset) {
  if (window <= std::chrono::microseconds::zero() || !next_offset || *next_offset - offset >= window) {
    return std::chrono::nanoseconds::zero();
  }
  return window;
}

}  // namespace aftershock::load::internal

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_COALESCE_WINDOW_H_
