#include "framework/load/internal/retry_timer.h"

namespace aftershock::load::internal {

RetryTimer::RetryTimer() : thread_([this] { Loop(); }) {}

RetryTimer::~RetryTimer() { Stop(); }

void RetryTimer::Schedule(Clock::time_point when, std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      queue_.push(Entry{when, next_order_++, std::move(fn)});
      cv_.notify_one();
      return;
    }
  }
  fn();  // after Stop(): run at once rather than lose it
}

void RetryTimer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

void RetryTimer::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (queue_.empty()) {
      if (stopping_) return;
      cv_.wait(lock);
      continue;
    }
    if (!stopping_ && Clock::now() < queue_.top().when) {
      // A copy: wait_until reads its deadline again after waking, and a Schedule() while the lock is
      // released may grow the queue's vector, freeing the entry a reference would point into.
      const Clock::time_point next = queue_.top().when;
      cv_.wait_until(lock, next);
      continue;
    }
    std::function<void()> fn = std::move(const_cast<Entry&>(queue_.top()).fn);
    queue_.pop();
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace aftershock::load::internal
