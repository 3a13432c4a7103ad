#include "framework/metrics/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace aftershock::metrics {
namespace {

constexpr int kSubBucketBits = 7;                       // 128 sub-buckets per power of two
constexpr int kSubBuckets = 1 << kSubBucketBits;        // 128
constexpr int kExactLimit = 2 * kSubBuckets;            // values below 256 ns get one bucket each
constexpr int kFirstLogExponent = kSubBucketBits + 1;   // 8: [256, 512) is the first split octave
constexpr int kTopExponent = 44;                        // [2^44, 2^45) is the last octave
constexpr int kBucketCount = kExactLimit + (kTopExponent - kFirstLogExponent + 1) * kSubBuckets;  // 4992
constexpr int kWindowAlign = 32;                        // window grows in chunks of 32 buckets
static_assert(kBucketCount % kWindowAlign == 0);
static_assert(kBucketCount * sizeof(std::uint64_t) <= 64 * 1024);

int BucketOf(std::int64_t value) {
  if (value < kExactLimit) return static_cast<int>(value);
  const auto v = static_cast<std::uint64_t>(std::min(value, LatencyHistogram::kHighestTrackableNs));
  const int exponent = std::bit_width(v) - 1;  // >= 8
  const int sub = static_cast<int>(v >> (exponent - kSubBucketBits)) - kSubBuckets;
  return kExactLimit + (exponent - kFirstLogExponent) * kSubBuckets + sub;
}

// The value reported for a bucket: its midpoint (exact for the unit buckets).
std::int64_t RepresentativeOf(int bucket) {
  if (bucket < kExactLimit) return bucket;
  const int k = bucket - kExactLimit;
  const int shift = k / kSubBuckets + kFirstLogExponent - kSubBucketBits;
  const std::int64_t lower = static_cast<std::int64_t>(kSubBuckets + k % kSubBuckets) << shift;
  const std::int64_t width = std::int64_t{1} << shift;
  return lower + width / 2;
}

int AlignDown(int bucket) { return bucket / kWindowAlign * kWindowAlign; }
int AlignUp(int end) { return (end + kWindowAlign - 1) / kWindowAlign * kWindowAlign; }

}  // namespace

void LatencyHistogram::EnsureWindow(int first_bucket, int last_bucket) {
  const int want_begin = AlignDown(first_bucket);
  const int want_end = AlignUp(last_bucket + 1);
  if (counts_.empty()) {
    window_begin_ = want_begin;
    counts_.assign(static_cast<std::size_t>(want_end - want_begin), 0);
    return;
  }
  const int old_end = window_begin_ + static_cast<int>(counts_.size());
  const int new_begin = std::min(window_begin_, want_begin);
  const int new_end = std::max(old_end, want_end);
  if (new_begin == window_begin_ && new_end == old_end) return;
  // Exact-size reallocation keeps capacity == size, which bounds the memory of a histogram.
  std::vector<std::uint64_t> grown(static_cast<std::size_t>(new_end - new_begin), 0);
  std::copy(counts_.begin(), counts_.end(), grown.begin() + (window_begin_ - new_begin));
  counts_ = std::move(grown);
  window_begin_ = new_begin;
}

void LatencyHistogram::Record(std::int64_t value_ns, std::uint64_t count) {
  if (count == 0) return;
  const std::int64_t value = std::max<std::int64_t>(value_ns, 0);
  const int bucket = BucketOf(value);
  EnsureWindow(bucket, bucket);
  counts_[static_cast<std::size_t>(bucket - window_begin_)] += count;
  if (count_ == 0) {
    min_ = value;
    max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  count_ += count;
  sum_ += static_cast<double>(value) * static_cast<double>(count);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    *this = other;
    return;
  }
  EnsureWindow(other.window_begin_, other.window_begin_ + static_cast<int>(other.counts_.size()) - 1);
  const auto offset = static_cast<std::size_t>(other.window_begin_ - window_begin_);
  for (std::size_t i = 0; i < other.counts_.size(); ++i) counts_[offset + i] += other.counts_[i];
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

void LatencyHistogram::Reset() { *this = LatencyHistogram(); }

LatencyHistogram::Buckets LatencyHistogram::ToBuckets() const {
  Buckets out;
  if (count_ == 0) return out;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0) out.counts.emplace_back(window_begin_ + static_cast<int>(i), counts_[i]);
  }
  out.min = min_;
  out.max = max_;
  out.sum = sum_;
  return out;
}

LatencyHistogram LatencyHistogram::FromBuckets(const Buckets& buckets) {
  LatencyHistogram h;
  if (buckets.counts.empty()) {
    if (buckets.min != 0 || buckets.max != 0 || buckets.sum != 0) {
      throw std::invalid_argument("histogram: no buckets but min, max or sum is not 0");
    }
    return h;
  }
  int previous = -1;
  for (const auto& [bucket, count] : buckets.counts) {
    if (bucket < 0 || bucket >= kBucketCount) {
      throw std::invalid_argument("histogram: bucket " + std::to_string(bucket) + " is outside 0.." +
                                  std::to_string(kBucketCount - 1));
    }
    if (bucket <= previous) throw std::invalid_argument("histogram: bucket " + std::to_string(bucket) + " is not increasing");
    if (count == 0) throw std::invalid_argument("histogram: bucket " + std::to_string(bucket) + " has count 0");
    previous = bucket;
  }
  if (buckets.min < 0 || buckets.min > buckets.max) throw std::invalid_argument("histogram: min is negative or above max");
  if (BucketOf(buckets.min) != buckets.counts.front().first) {
    throw std::invalid_argument("histogram: min " + std::to_string(buckets.min) + " is not in the first bucket");
  }
  if (BucketOf(buckets.max) != buckets.counts.back().first) {
    throw std::invalid_argument("histogram: max " + std::to_string(buckets.max) + " is not in the last bucket");
  }
  h.EnsureWindow(buckets.counts.front().first, buckets.counts.back().first);
  for (const auto& [bucket, count] : buckets.counts) {
    h.counts_[static_cast<std::size_t>(bucket - h.window_begin_)] = count;
    h.count_ += count;
  }
  h.min_ = buckets.min;
  h.max_ = buckets.max;
  h.sum_ = buckets.sum;
  return h;
}

double LatencyHistogram::Mean() const {
  return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_);
}

std::int64_t LatencyHistogram::ValueAtPercentile(double percentile_0_to_100) const {
  if (count_ == 0) return 0;
  if (!(percentile_0_to_100 > 0)) return min_;  // also NaN
  if (percentile_0_to_100 >= 100) return max_;
  const double exact_rank = std::ceil(percentile_0_to_100 * static_cast<double>(count_) / 100.0);
  const std::uint64_t rank = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(exact_rank), 1, count_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      return std::clamp(RepresentativeOf(window_begin_ + static_cast<int>(i)), min_, max_);
    }
  }
  return max_;  // unreachable: the counts sum to count_
}

}  // namespace aftershock::metrics
