#include "framework/stress/hang_probe.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <utility>

namespace aftershock::stress {

namespace {
constexpr std::size_t kNamedHangs = 5;
}  // namespace

HangProbe::HangProbe(ProbeCall call, HangProbeOptions options, RunClock clock)
    : call_(std::move(call)), options_(options), clock_(clock) {
  if (!call_) throw std::invalid_argument("HangProbe: no probe call");
  if (options_.hang_bound.count() < 1) throw std::invalid_argument("HangProbe: hang_bound must be >= 1 ms");
  if (options_.margin.count() < 0) throw std::invalid_argument("HangProbe: margin must be >= 0");
  if (options_.period.count() < 1) throw std::invalid_argument("HangProbe: period must be >= 1 ms");
  if (options_.max_outstanding < 1) throw std::invalid_argument("HangProbe: max_outstanding must be >= 1");
  result_.hang_bound = options_.hang_bound;
  for (int i = 0; i < options_.max_outstanding; ++i) threads_.emplace_back([this, i] { Loop(i); });
}

HangProbe::~HangProbe() { Stop(); }

void HangProbe::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

HangProbeResult HangProbe::result() const {
  std::lock_guard<std::mutex> lock(mu_);
  return result_;
}

void HangProbe::Loop(int index) {
  // Thread i probes at i x period, then every max_outstanding x period: one probe per period in all.
  const auto turn = options_.period * options_.max_outstanding;
  auto next = Clock::now() + options_.period * index;
  const auto deadline = options_.hang_bound + options_.margin;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
    }
    const auto start = Clock::now();
    std::string error;
    try {
      call_(deadline);
    } catch (const std::exception& e) {
      error = e.what();
    } catch (...) {
      error = "an exception that is not a std::exception";
    }
    const auto end = Clock::now();
    const std::int64_t latency_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++result_.probes;
      result_.max_latency_ns = std::max(result_.max_latency_ns, latency_ns);
      if (!error.empty()) {
        ++result_.failed;
        result_.last_error = std::move(error);
      }
      if (end - start > options_.hang_bound) {
        ++result_.hung;
        if (result_.hung_at_seconds.size() < kNamedHangs) {
          result_.hung_at_seconds.push_back(static_cast<double>(clock_.Since(start).count()) / 1e9);
        }
      }
    }
    next += turn;
    next = std::max(next, Clock::now());  // a probe slower than its turn: the next one now, no burst
  }
}

}  // namespace aftershock::stress
