// TokenBucket: byte-rate limiter for one direction of one proxied connection.
//
// The bucket holds at most a tenth of a second of tokens (at least one byte), starts full and refills
// continuously. A rate of 0 means unlimited.
//
//   TokenBucket bucket(100'000, now);
//   std::size_t n = bucket.Take(now, chunk_size);      // bytes that may be written now (maybe 0)
//   if (n == 0) wait_until(bucket.ReadyAt(now, chunk_size));
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_TOKEN_BUCKET_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_TOKEN_BUCKET_H_

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace aftershock::cluster::internal {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  TokenBucket(std::uint64_t bytes_per_second, Clock::time_point now);

  std::uint64_t rate() const { return rate_; }
  // Changes the rate; keeps the tokens already earned, capped at the new burst size.
  void SetRate(std::uint64_t bytes_per_second, Clock::time_point now);

  // Removes and returns up to `want` whole tokens available at `now` (all of `want` when unlimited).
  std::size_t Take(Clock::time_point now, std::size_t want);

  // When min(want, burst) tokens will be available (== now if they already are).
  Clock::time_point ReadyAt(Clock::time_point now, std::size_t want);

 private:
  void Refill(Clock::time_point now);
  double burst() const;

  std::uint64_t rate_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_TOKEN_BUCKET_H_
