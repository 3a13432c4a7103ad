// LatencyHistogram: a mergeable log-linear histogram of latencies in nanoseconds (HdrHistogram-like).
//
// Values below 256 ns are counted exactly; above, every power of two is split into 128 equal
// sub-buckets, so a reported percentile is within 1/256 (< 0.4%) of the true one. Values up to
// kHighestTrackableNs (~9.7 h) are resolved; larger ones clamp into the top bucket (Max() still
// reports the true maximum). The bucket counts cover only the window of buckets actually used, so an
// empty histogram allocates nothing and a full one stays under 40 KiB: we keep one per run second.
// A histogram that will not be written again can be Compact()ed: only its nonzero buckets stay, as
// packed bytes (about one byte per used bucket instead of 8 per bucket of the window). Every query
// answers exactly as before, and a later Record() or Merge() into it expands it first, so a caller
// cannot get compaction wrong, only pay for it. Not thread-safe: callers lock.
//
//   LatencyHistogram h;
//   h.Record(1'500'000);             // 1.5 ms
//   h.Record(2'000'000, /*count=*/3);
//   std::int64_t p99 = h.ValueAtPercentile(99);
//   total.Merge(h);
//   h.Compact();                     // same answers, less memory; h.Record() still works
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
  // as 0; values above kHighestTrackableNs land in the top bucket. count == 0 is a no-op. A compact
  // histogram is expanded first.
  void Record(std::int64_t value_ns, std::uint64_t count = 1);
  // Adds every count of `other` (compact or not); afterwards *this equals one histogram that
  // recorded both. A compact *this is expanded first (unless `other` is empty).
  void Merge(const LatencyHistogram& other);
  void Reset();  // back to empty, releasing the bucket memory

  // Keeps only the nonzero buckets, packed (about one byte a bucket where used buckets are
  // neighbours with small counts); min, max, count and sum stay as they are. Queries, ToBuckets,
  // Merge as a source and == answer exactly as before. No-op when empty or already compact (or in
  // the unreal case of a bucket holding 2^63 calls or more).
  void Compact();
  bool is_compact() const { return packed_bytes_ != 0; }

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

  // Equal when they hold the same calls, whether either is compact or not.
  friend bool operator==(const LatencyHistogram& a, const LatencyHistogram& b);

 private:
  void EnsureWindow(int first_bucket, int last_bucket);
  void Expand();  // back from packed_ to counts_; no-op unless compact
  // Calls visit(bucket, count) for every nonzero bucket in increasing order, in either form, until
  // visit returns true (found).
  template <typename Visit>
  void ForEachBucket(Visit visit) const;
  const std::uint8_t* packed() const { return reinterpret_cast<const std::uint8_t*>(counts_.data()); }

  // Dense (packed_bytes_ == 0): counts_[i] is the count of bucket window_begin_ + i. The window is
  // always the 32-aligned cover of the lowest and highest bucket used (the buckets of min_ and
  // max_), so two histograms holding the same calls are equal, and Expand() restores exactly the
  // window Compact() dropped.
  // Compact: counts_'s words hold packed_bytes_ bytes (zero-padded to a whole word) of varints, per
  // nonzero bucket (count << 1 | gap), followed when gap is 1 by (bucket - previous bucket - 2), the
  // first's previous taken as -1 (gap 0: the bucket right after the previous); window_begin_ is 0. Sharing the vector keeps sizeof(LatencyHistogram) as it was.
  std::vector<std::uint64_t> counts_;
  int window_begin_ = 0;
  std::uint32_t packed_bytes_ = 0;
  std::uint64_t count_ = 0;
  std::int64_t min_ = 0;
  std::int64_t max_ = 0;
  double sum_ = 0;  // exact for sums below 2^53 ns (~104 days)
};

}  // namespace aftershock::metrics

#endif  // AFTERSHOCK_FRAMEWORK_METRICS_LATENCY_HISTOGRAM_H_
