#include "framework/scenario/progress_line.h"

#include <exception>
#include <utility>

namespace aftershock::scenario {

ProgressLine::ProgressLine(std::chrono::milliseconds period, std::function<std::string()> render,
                                   std::ostream& out)
    : period_(period), render_(std::move(render)), out_(out) {
  if (period_ > std::chrono::milliseconds::zero() && render_) thread_ = std::thread([this] { Run(); });
}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int ProgressLine::lines_printed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

void ProgressLine::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  // Ends when the destructor sets stop_; each wait lasts at most one period.
  while (!wake_.wait_for(lock, period_, [this] { return stop_; })) {
    lock.unlock();
    std::string line;
    try {
      line = "[aftershock] " + render_() + "\n";
    } catch (const std::exception& e) {
      line = std::string("[aftershock] progress unavailable: ") + e.what() + "\n";
    } catch (...) {
      line = "[aftershock] progress unavailable\n";
    }
    out_ << line;
    out_.flush();
    lock.lock();
    ++lines_;
  }
}

}  // namespace aftershock::scenario
