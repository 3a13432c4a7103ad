#include "framework/metrics/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
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

// LEB128: 7 bits a byte, low bits first, the high bit set on every byte but the last.
void AppendVarint(std::uint64_t value, std::vector<std::uint8_t>& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(value));
}

// Reads one varint at `pos` (advanced past it). The bytes are our own Compact()'s, so well formed.
std::uint64_t ReadVarint(const std::uint8_t* in, std::size_t& pos) {
  std::uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    const std::uint8_t byte = in[pos++];
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
}

// One packed bucket: the varint (count << 1 | gap), then, when gap is 1, the varint (delta - 2) of a
// bucket index more than one above the previous. A histogram of a busy second uses long runs of
// neighbouring buckets with small counts, so most buckets take one byte (two with a separate delta).
void AppendPackedBucket(int delta, std::uint64_t count, std::vector<std::uint8_t>& out) {
  const bool gap = delta != 1;
  AppendVarint(count << 1 | (gap ? 1 : 0), out);
  if (gap) AppendVarint(static_cast<std::uint64_t>(delta - 2), out);
}

// Reads the bucket after `bucket` (advanced to it) and returns its count.
std::uint64_t ReadPackedBucket(const std::uint8_t* in, std::size_t& pos, int& bucket) {
  const std::uint64_t head = ReadVarint(in, pos);
  bucket += (head & 1) != 0 ? static_cast<int>(ReadVarint(in, pos)) + 2 : 1;
  return head >> 1;
}

}  // namespace

template <typename Visit>
void LatencyHistogram::ForEachBucket(Visit visit) const {
  if (is_compact()) {
    const std::uint8_t* bytes = packed();
    int bucket = -1;
    for (std::size_t pos = 0; pos < packed_bytes_;) {
      const std::uint64_t count = ReadPackedBucket(bytes, pos, bucket);
      if (visit(bucket, count)) return;
    }
    return;
  }
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0 && visit(window_begin_ + static_cast<int>(i), counts_[i])) return;
  }
}

void LatencyHistogram::Compact() {
  if (count_ == 0 || is_compact()) return;
  std::vector<std::uint8_t> bytes;
  bytes.reserve(256);
  int previous = -1;
  bool fits = true;
  ForEachBucket([&](int bucket, std::uint64_t count) {
    if (count > (std::numeric_limits<std::uint64_t>::max() >> 1)) {
      fits = false;  // the packed head is count << 1
      return true;
    }
    AppendPackedBucket(bucket - previous, count, bytes);
    previous = bucket;
    return false;
  });
  if (!fits) return;  // stays dense: a bucket of 2^63 calls or more cannot be packed
  // An exact-size vector (capacity == size) whose words carry the bytes, zero-padded.
  std::vector<std::uint64_t> words((bytes.size() + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t), 0);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  counts_ = std::move(words);
  window_begin_ = 0;
  packed_bytes_ = static_cast<std::uint32_t>(bytes.size());
}

void LatencyHistogram::Expand() {
  if (!is_compact()) return;
  const std::vector<std::uint64_t> words = std::move(counts_);
  const std::size_t size = packed_bytes_;
  counts_ = {};
  packed_bytes_ = 0;
  EnsureWindow(BucketOf(min_), BucketOf(max_));
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(words.data());
  int bucket = -1;
  for (std::size_t pos = 0; pos < size;) {
    const std::uint64_t count = ReadPackedBucket(bytes, pos, bucket);
    counts_[static_cast<std::size_t>(bucket - window_begin_)] = count;
  }
}

bool operator==(const LatencyHistogram& a, const LatencyHistogram& b) {
  if (a.count_ != b.count_ || a.min_ != b.min_ || a.max_ != b.max_ || a.sum_ != b.sum_) return false;
  if (a.is_compact() == b.is_compact()) {
    // Both dense or both packed: the representation is a function of the buckets.
    return a.window_begin_ == b.window_begin_ && a.packed_bytes_ == b.packed_bytes_ && a.counts_ == b.counts_;
  }
  return a.ToBuckets() == b.ToBuckets();
}

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
  Expand();
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
  Expand();
  if (other.is_compact()) {
    EnsureWindow(BucketOf(other.min_), BucketOf(other.max_));  // the window `other` had when dense
    other.ForEachBucket([this](int bucket, std::uint64_t n) {
      counts_[static_cast<std::size_t>(bucket - window_begin_)] += n;
      return false;
    });
  } else {
    EnsureWindow(other.window_begin_, other.window_begin_ + static_cast<int>(other.counts_.size()) - 1);
    const auto offset = static_cast<std::size_t>(other.window_begin_ - window_begin_);
    for (std::size_t i = 0; i < other.counts_.size(); ++i) counts_[offset + i] += other.counts_[i];
  }
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

void LatencyHistogram::Reset() { *this = LatencyHistogram(); }

LatencyHistogram::Buckets LatencyHistogram::ToBuckets() const {
  Buckets out;
  if (count_ == 0) return out;
  ForEachBucket([&out](int bucket, std::uint64_t count) {
    out.counts.emplace_back(bucket, count);
    return false;
  });
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
  std::int64_t value = max_;  // not reached: the counts sum to count_
  ForEachBucket([&](int bucket, std::uint64_t count) {
    seen += count;
    if (seen < rank) return false;
    value = std::clamp(RepresentativeOf(bucket), min_, max_);
    return true;
  });
  return value;
}

}  // namespace aftershock::metrics
