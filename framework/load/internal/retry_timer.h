// RetryTimer: one thread that runs callbacks at given steady-clock times (retry back-offs).
//
// Internal to the load runner. Cancel-free by design: every scheduled callback runs exactly once,
// at its time or, on Stop(), at once, so no call is ever forgotten between attempts.
//
//   RetryTimer timer;
//   timer.Schedule(Clock::now() + 20ms, [] { ... });
//   timer.Stop();  // runs what is left, joins
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_RETRY_TIMER_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_RETRY_TIMER_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "framework/common/run_clock.h"

namespace aftershock::load::internal {

class RetryTimer {
 public:
  RetryTimer();
  ~RetryTimer();
  RetryTimer(const RetryTimer&) = delete;
  RetryTimer& operator=(const RetryTimer&) = delete;

  void Schedule(Clock::time_point when, std::function<void()> fn);
  // Runs every pending callback now (in time order) and joins the thread. Idempotent.
  void Stop();

 private:
  struct Entry {
    Clock::time_point when;
    std::uint64_t order;
    std::function<void()> fn;
    bool operator>(const Entry& o) const { return when != o.when ? when > o.when : order > o.order; }
  };
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  std::uint64_t next_order_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace aftershock::load::internal

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_RETRY_TIMER_H_
