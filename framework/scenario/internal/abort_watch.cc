#include "framework/scenario/internal/abort_watch.h"

#include <chrono>

namespace aftershock::scenario::internal {

namespace {
constexpr auto kPoll = std::chrono::milliseconds(20);
}  // namespace

AbortWatch::AbortWatch(const AbortMonitor& monitor, chaos::ChaosTimeline& timeline, std::function<void()> on_abort)
    : monitor_(monitor), timeline_(timeline), on_abort_(std::move(on_abort)) {
  thread_ = std::thread([this] { Loop(); });
}

AbortWatch::~AbortWatch() { Stop(); }

void AbortWatch::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (!request_) Look();
}

bool AbortWatch::Look() {
  if (request_) return true;
  if (!monitor_.Breached()) return false;
  std::optional<AbortRequest> first = monitor_.FirstBreach();
  if (!first) return false;
  request_ = std::move(first);
  timeline_.Record(request_->at, "abort", "",
                   (request_->condition == "operator-halt" ? std::string("operator halt")
                                                           : "stop condition '" + request_->condition + "'") +
                       ": " + request_->reason);
  if (on_abort_) on_abort_();
  return true;
}

void AbortWatch::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    const bool acted = Look();
    lock.lock();
    if (acted) return;
    cv_.wait_for(lock, kPoll, [this] { return stop_; });
  }
}

}  // namespace aftershock::scenario::internal
