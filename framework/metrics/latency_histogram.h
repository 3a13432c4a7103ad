// LatencyHistogram: a mergeable log-linear histogram of latencies in nanoseconds (HdrHistogram-like).
//
// Values below 256 ns are counted exactly; above, every power of two is split into 128 equal
// sub-buckets, so a reported percentile is within 1/256 (< 0.4%) of the true one. Values up to
// kHighestTrackableNs (~9.7 h) are resolved; larger ones clamp into the top bucket (Max() still
// reports the true maximum). The bucket counts cover only the window of buckets actually used, so an
// empty histogram allocates nothing and a full one stays under 40 KiB: we keep one per run second.
// Not thread-safe: callers lock.
//
//   LatencyHistogram h;
//   h.Record(1'500'000);             // 1.5 ms
//   h.Record(2'000'000, /*count=*/3);
//   std::int64_t p99 = h.ValueAtPercentile(99);
//   total.Merge(h);
#ifndef AFTERSHOCK_FRAMEWORK_METRICS_LATENCY_HISTOGRAM_H_
#define AFTERSHOCK_FRAMEWORK_METRICS_LATENCY_HISTOGRAM_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace aftershock::metrics {

class LatencyHistogram {
 public:
  // Largest value resolved to the stated precision: 2^45 - 1 ns, about 9.77 hours.
  static constexpr std::int64_t kHighestTrackableNs = (std::int64_t{1} << 45) - 1;

  LatencyHistogram() = default;

  // Counts `count` calls of latency `value_ns`. Negative values (a clock stepping backwards) count
  // as 0; values above kHighestTrackableNs land in the top bucket. count == 0 is a no-op.
  void Record(std::int64_t value_ns, std::uint64_t count = 1);
  // Adds every count of `other`; afterwards *this equals one histogram that recorded both.
  void Merge(const LatencyHistogram& other);
  void Reset();  // back to empty, releasing the bucket memory

  std::uint64_t Count() const { return count_; }
  bool empty() const { return count_ == 0; }
  std::int64_t Min() const { return min_; }  // 0 when empty
  std::int64_t Max() const { return max_; }  // 0 when empty; the true value even when clamped
  double Mean() const;                       // exact (sum kept aside), 0 when empty
  // Nearest-rank percentile: the value of the ceil(p/100 * Count())-th smallest call, reported as the
  // midpoint of its bucket clamped into [Min(), Max()]. p <= 0 gives Min(), p >= 100 gives Max(),
  // 0 when empty.
  std::int64_t ValueAtPercentile(double percentile_0_to_100) const;

  // The histogram as plain figures: the used buckets as (bucket index, count) in increasing index
  // order, with the exact min, max and sum beside them. What a file carries to another process
  // (the load generator's workers, framework/metrics/timeline_file.h): FromBuckets(h.ToBuckets())
  // == h, so merged percentiles are the ones of one histogram that saw every call.
  struct Buckets {
    std::vector<std::pair<int, std::uint64_t>> counts;  // nonzero counts only
    std::int64_t min = 0, max = 0;
    double sum = 0;
    friend bool operator==(const Buckets&, const Buckets&) = default;
  };
  Buckets ToBuckets() const;
  // Throws std::invalid_argument naming the problem: an index out of range or not increasing, a
  // zero count, or a min/max that do not fall into the first/last bucket.
  static LatencyHistogram FromBuckets(const Buckets& buckets);

  // Heap bytes held by the bucket counts (0 when empty); for tests and capacity planning.
  std::size_t MemoryBytes() const { return counts_.capacity() * sizeof(std::uint64_t); }

  friend bool operator==(const LatencyHistogram&, const LatencyHistogram&) = default;

 private:
  void EnsureWindow(int first_bucket, int last_bucket);

  // counts_[i] is the count of bucket window_begin_ + i. The window is always the 32-aligned cover
  // of the lowest and highest bucket used, so two histograms holding the same calls are equal.
  std::vector<std::uint64_t> counts_;
  int window_begin_ = 0;
  std::uint64_t count_ = 0;
  std::int64_t min_ = 0;
  std::int64_t max_ = 0;
  double sum_ = 0;  // exact for sums below 2^53 ns (~104 days)
};

}  // namespace aftershock::metrics

#endif  // AFTERSHOCK_FRAMEWORK_METRICS_LATENCY_HISTOGRAM_H_
