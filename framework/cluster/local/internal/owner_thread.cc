#include "framework/cluster/local/internal/owner_thread.h"

#include <stdexcept>

namespace aftershock::cluster::internal {

OwnerThread::OwnerThread(std::function<void()> tick, std::chrono::milliseconds period)
    : tick_(std::move(tick)), period_(period) {
  thread_ = std::thread([this] { Loop(); });
}

void OwnerThread::Run(std::function<void()> task) {
  std::packaged_task<void()> packaged(std::move(task));
  std::future<void> done = packaged.get_future();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (exit_) throw std::runtime_error("the local cluster is stopping");
    tasks_.push_back(std::move(packaged));
    woken_ = true;
  }
  wake_.notify_all();
  done.get();
}

void OwnerThread::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  wake_.notify_all();
}

void OwnerThread::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    exit_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void OwnerThread::Loop() {
  while (true) {
    std::deque<std::packaged_task<void()>> tasks;
    bool exiting = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks.swap(tasks_);
      exiting = exit_;
    }
    for (auto& task : tasks) task();
    if (exiting) {
      std::lock_guard<std::mutex> lock(mu_);
      if (tasks_.empty()) return;
      continue;
    }
    tick_();
    std::unique_lock<std::mutex> lock(mu_);
    wake_.wait_for(lock, period_, [&] { return woken_ || exit_; });
    woken_ = false;
  }
}

}  // namespace aftershock::cluster::internal
