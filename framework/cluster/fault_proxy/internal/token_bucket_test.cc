#include "framework/cluster/fault_proxy/internal/token_bucket.h"

#include <chrono>

#include <gtest/gtest.h>

namespace aftershock::cluster::internal {
namespace {

using std::chrono::milliseconds;
using Clock = TokenBucket::Clock;

TEST(FaultProxyTokenBucketTest, UnlimitedGivesEverythingAtOnce) {
  const auto t0 = Clock::time_point{} + std::chrono::hours(1);
  TokenBucket bucket(0, t0);
  EXPECT_EQ(bucket.Take(t0, 1'000'000), 1'000'000u);
  EXPECT_EQ(bucket.ReadyAt(t0, 1'000'000), t0);
}

TEST(FaultProxyTokenBucketTest, StartsWithATenthOfASecondAndRefillsAtTheRate) {
  const auto t0 = Clock::time_point{} + std::chrono::hours(1);
  TokenBucket bucket(100'000, t0);
  EXPECT_EQ(bucket.Take(t0, 50'000), 10'000u);  // burst = rate / 10
  EXPECT_EQ(bucket.Take(t0, 50'000), 0u);
  EXPECT_EQ(bucket.Take(t0 + milliseconds(50), 50'000), 5'000u);
  // Never more than the burst, however long the pause.
  EXPECT_EQ(bucket.Take(t0 + std::chrono::seconds(60), 50'000), 10'000u);
}

TEST(FaultProxyTokenBucketTest, ReadyAtIsWhenTheNeededTokensExist) {
  const auto t0 = Clock::time_point{} + std::chrono::hours(1);
  TokenBucket bucket(1'000, t0);
  EXPECT_EQ(bucket.Take(t0, 1'000), 100u);
  const auto ready = bucket.ReadyAt(t0, 1'000);  // needs min(1000, burst 100) = 100 tokens: 100 ms
  EXPECT_GE(ready - t0, milliseconds(100));
  EXPECT_LT(ready - t0, milliseconds(101));
  EXPECT_EQ(bucket.Take(ready, 1'000), 100u);
  EXPECT_EQ(bucket.ReadyAt(ready + milliseconds(100), 50), ready + milliseconds(100));
}

TEST(FaultProxyTokenBucketTest, TotalOverTimeMatchesTheRate) {
  const auto t0 = Clock::time_point{} + std::chrono::hours(1);
  TokenBucket bucket(10'000, t0);
  std::size_t total = 0;
  for (int ms = 0; ms <= 2'000; ms += 10) total += bucket.Take(t0 + milliseconds(ms), 1'000'000);
  // 1'000 initial burst + 2 s * 10'000 B/s.
  EXPECT_EQ(total, 21'000u);
}

TEST(FaultProxyTokenBucketTest, SetRateCapsTokensAtTheNewBurst) {
  const auto t0 = Clock::time_point{} + std::chrono::hours(1);
  TokenBucket bucket(100'000, t0);
  bucket.SetRate(1'000, t0);
  EXPECT_EQ(bucket.rate(), 1'000u);
  EXPECT_EQ(bucket.Take(t0, 100'000), 100u);
  bucket.SetRate(0, t0);
  EXPECT_EQ(bucket.Take(t0, 100'000), 100'000u);
}

}  // namespace
}  // namespace aftershock::cluster::internal
