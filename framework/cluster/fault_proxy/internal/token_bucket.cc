#include "framework/cluster/fault_proxy/internal/token_bucket.h"

#include <algorithm>
#include <cmath>

namespace aftershock::cluster::internal {

TokenBucket::TokenBucket(std::uint64_t bytes_per_second, Clock::time_point now)
    : rate_(bytes_per_second), tokens_(0), last_(now) {
  tokens_ = burst();
}

double TokenBucket::burst() const { return std::max(1.0, static_cast<double>(rate_) / 10.0); }

void TokenBucket::SetRate(std::uint64_t bytes_per_second, Clock::time_point now) {
  Refill(now);
  rate_ = bytes_per_second;
  tokens_ = std::min(tokens_, burst());
}

void TokenBucket::Refill(Clock::time_point now) {
  if (now <= last_) return;
  const double seconds = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(burst(), tokens_ + seconds * static_cast<double>(rate_));
  last_ = now;
}

std::size_t TokenBucket::Take(Clock::time_point now, std::size_t want) {
  if (rate_ == 0) return want;
  Refill(now);
  const auto whole = static_cast<std::size_t>(std::floor(tokens_));
  const std::size_t n = std::min(want, whole);
  tokens_ -= static_cast<double>(n);
  return n;
}

TokenBucket::Clock::time_point TokenBucket::ReadyAt(Clock::time_point now, std::size_t want) {
  if (rate_ == 0) return now;
  Refill(now);
  const double needed = std::min(static_cast<double>(want), std::floor(burst()));
  if (tokens_ >= needed) return now;
  const double seconds = (needed - tokens_) / static_cast<double>(rate_);
  // Round up so that the bucket really holds `needed` tokens when the timer fires.
  const auto wait = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)) +
                    std::chrono::microseconds(1);
  return now + wait;
}

}  // namespace aftershock::cluster::internal
