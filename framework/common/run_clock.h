// RunClock: the one clock that load, chaos and gates share within a run.
//
// Everything in a run is stamped against the same start: a steady-clock origin for measuring and
// a wall-clock origin (unix milliseconds) for the CSV columns, so the load and chaos timelines join
// on time and every failure can be attributed to the fault that caused it.
//
//   RunClock clock = RunClock::StartNow();
//   std::int64_t ms = clock.UnixMs(Clock::now());   // wall-clock ms of a steady time point
//   std::int64_t s = clock.SecondOf(Clock::now());  // whole seconds since the run started
#ifndef AFTERSHOCK_FRAMEWORK_COMMON_RUN_CLOCK_H_
#define AFTERSHOCK_FRAMEWORK_COMMON_RUN_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace aftershock {

using Clock = std::chrono::steady_clock;

class RunClock {
 public:
  RunClock() = default;
  RunClock(Clock::time_point start, std::int64_t start_unix_ms) : start_(start), start_unix_ms_(start_unix_ms) {}

  static RunClock StartNow() {
    const auto wall = std::chrono::system_clock::now();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(wall.time_since_epoch()).count();
    return RunClock(Clock::now(), ms);
  }

  Clock::time_point start() const { return start_; }
  std::int64_t start_unix_ms() const { return start_unix_ms_; }

  std::chrono::nanoseconds Since(Clock::time_point t) const { return t - start_; }
  std::int64_t UnixMs(Clock::time_point t) const {
    return start_unix_ms_ + std::chrono::duration_cast<std::chrono::milliseconds>(t - start_).count();
  }
  // Whole seconds since the start (floor; negative before the start).
  std::int64_t SecondOf(Clock::time_point t) const {
    const auto ns = (t - start_).count();
    constexpr std::int64_t kNs = 1'000'000'000;
    return ns >= 0 ? ns / kNs : -((-ns + kNs - 1) / kNs);
  }
  // Unix milliseconds at which run second `second` begins.
  std::int64_t UnixMsOfSecond(std::int64_t second) const { return start_unix_ms_ + second * 1000; }

 private:
  Clock::time_point start_{};
  std::int64_t start_unix_ms_ = 0;
};

}  // namespace aftershock

#endif  // AFTERSHOCK_FRAMEWORK_COMMON_RUN_CLOCK_H_
