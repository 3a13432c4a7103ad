#include "framework/metrics/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "framework/metrics/internal/test_util.h"

namespace aftershock::metrics {
namespace {

using internal::kMs;
using internal::kUs;

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kHour = 3600 * kSec;

double RelativeError(std::int64_t reported, std::int64_t exact) {
  return std::abs(static_cast<double>(reported) - static_cast<double>(exact)) / static_cast<double>(exact);
}

// Nearest-rank percentile of sorted values: the ceil(p/100 * n)-th smallest.
std::int64_t ExactPercentile(const std::vector<std::int64_t>& sorted, double p) {
  if (p <= 0) return sorted.front();
  if (p >= 100) return sorted.back();
  const double rank = std::ceil(p * static_cast<double>(sorted.size()) / 100.0);
  const auto index = static_cast<std::size_t>(std::max(rank, 1.0)) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

TEST(LatencyHistogramTest, EmptyReportsZeros) {
  const LatencyHistogram h;
  EXPECT_EQ(h.Count(), 0u);
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(h.Min(), 0);
  EXPECT_EQ(h.Max(), 0);
  EXPECT_EQ(h.Mean(), 0.0);
  EXPECT_EQ(h.ValueAtPercentile(0), 0);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
  EXPECT_EQ(h.ValueAtPercentile(100), 0);
  EXPECT_EQ(h.MemoryBytes(), 0u);
}

TEST(LatencyHistogramTest, CountsMinMaxMeanAreExact) {
  LatencyHistogram h;
  h.Record(3 * kMs);
  h.Record(1 * kMs, 2);
  h.Record(10 * kMs, 0);  // no-op
  h.Record(6 * kMs);
  EXPECT_EQ(h.Count(), 4u);
  EXPECT_EQ(h.Min(), 1 * kMs);
  EXPECT_EQ(h.Max(), 6 * kMs);
  EXPECT_DOUBLE_EQ(h.Mean(), 2.75 * kMs);
  EXPECT_EQ(h.ValueAtPercentile(0), 1 * kMs);
  EXPECT_EQ(h.ValueAtPercentile(100), 6 * kMs);
}

TEST(LatencyHistogramTest, SmallValuesAreExact) {
  LatencyHistogram h;
  for (std::int64_t v = 1; v <= 100; ++v) h.Record(v);
  EXPECT_EQ(h.ValueAtPercentile(1), 1);
  EXPECT_EQ(h.ValueAtPercentile(50), 50);
  EXPECT_EQ(h.ValueAtPercentile(90), 90);
  EXPECT_EQ(h.ValueAtPercentile(99), 99);
  EXPECT_EQ(h.ValueAtPercentile(99.5), 100);
  EXPECT_EQ(h.ValueAtPercentile(100), 100);
  EXPECT_DOUBLE_EQ(h.Mean(), 50.5);
}

TEST(LatencyHistogramTest, PercentileIsTheBucketMidpointClampedToMinMax) {
  LatencyHistogram h;
  // 1'000'000 lies in the octave [2^19, 2^20) whose buckets are 2^12 = 4096 wide:
  // bucket [999424, 1003520), midpoint 1001472.
  h.Record(1);
  h.Record(1'000'000);
  h.Record(kHour);
  EXPECT_EQ(h.ValueAtPercentile(50), 1'001'472);
  // Alone in the histogram, the value is also the min and max, so the clamp makes it exact.
  LatencyHistogram alone;
  alone.Record(1'000'000, 5);
  EXPECT_EQ(alone.ValueAtPercentile(50), 1'000'000);
}

TEST(LatencyHistogramTest, SweepFromOneMicrosecondToOneHourStaysWithinOnePercent) {
  LatencyHistogram h;
  double worst = 0;
  int checked = 0;
  for (double v = kUs; v <= static_cast<double>(kHour) && checked < 100'000; v *= 1.0007, ++checked) {
    const auto value = static_cast<std::int64_t>(v);
    h.Reset();
    h.Record(0);              // a min and a max far away, so the clamp does not hide the bucket error
    h.Record(value);
    h.Record(2 * kHour + 1);
    const std::int64_t p50 = h.ValueAtPercentile(50);
    worst = std::max(worst, RelativeError(p50, value));
    ASSERT_LE(RelativeError(p50, value), 0.01) << "value " << value << " reported " << p50;
  }
  EXPECT_GT(checked, 20'000);
  EXPECT_LE(worst, 1.0 / 256 + 1e-9);  // the design bound: half a bucket of 1/128 of the octave
  EXPECT_GT(worst, 0.003);             // and the sweep does reach near it
}

TEST(LatencyHistogramTest, RandomValuesMatchSortedExactPercentiles) {
  std::mt19937_64 rng(20240601);
  std::uniform_real_distribution<double> log_value(std::log(static_cast<double>(kUs)),
                                                   std::log(static_cast<double>(kHour)));
  std::vector<std::int64_t> values;
  LatencyHistogram h;
  for (int i = 0; i < 100'000; ++i) {
    const auto v = static_cast<std::int64_t>(std::exp(log_value(rng)));
    values.push_back(v);
    h.Record(v);
  }
  std::sort(values.begin(), values.end());
  ASSERT_EQ(h.Count(), values.size());
  EXPECT_EQ(h.Min(), values.front());
  EXPECT_EQ(h.Max(), values.back());
  for (const double p : {0.0, 0.1, 1.0, 10.0, 25.0, 33.3, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99, 100.0}) {
    const std::int64_t exact = ExactPercentile(values, p);
    EXPECT_LE(RelativeError(h.ValueAtPercentile(p), exact), 0.01) << "p" << p << " exact " << exact;
  }
  EXPECT_EQ(h.ValueAtPercentile(0), values.front());
  EXPECT_EQ(h.ValueAtPercentile(100), values.back());
}

TEST(LatencyHistogramTest, MergeEqualsRecordingIntoOne) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> fast(50, 2 * kMs);
  std::uniform_int_distribution<std::int64_t> slow(500 * kMs, 30 * kSec);
  LatencyHistogram a, b, both;
  for (int i = 0; i < 5'000; ++i) {
    const std::int64_t x = fast(rng);
    const std::int64_t y = slow(rng);
    a.Record(x);
    b.Record(y, 2);
    both.Record(x);
    both.Record(y, 2);
  }
  LatencyHistogram merged = a;
  merged.Merge(b);
  EXPECT_EQ(merged, both);
  EXPECT_EQ(merged.Count(), 15'000u);
  for (const double p : {0.0, 10.0, 33.0, 50.0, 90.0, 99.0, 100.0}) {
    EXPECT_EQ(merged.ValueAtPercentile(p), both.ValueAtPercentile(p)) << p;
  }
  // Order does not matter, and empty histograms are neutral.
  LatencyHistogram reversed = b;
  reversed.Merge(a);
  reversed.Merge(LatencyHistogram());
  EXPECT_EQ(reversed, both);
  LatencyHistogram from_empty;
  from_empty.Merge(a);
  EXPECT_EQ(from_empty, a);
}

TEST(LatencyHistogramTest, HugeValuesClampIntoTopBucketButMaxIsTrue) {
  LatencyHistogram h;
  const std::int64_t huge = 100 * kHour;
  h.Record(1 * kMs);
  h.Record(huge);
  EXPECT_EQ(h.Max(), huge);
  EXPECT_EQ(h.ValueAtPercentile(100), huge);
  // The top bucket's midpoint, below the true value but far above every trackable bucket.
  const std::int64_t p99 = h.ValueAtPercentile(99);
  EXPECT_LE(p99, huge);
  EXPECT_GT(p99, LatencyHistogram::kHighestTrackableNs - LatencyHistogram::kHighestTrackableNs / 128);
  EXPECT_LE(p99, LatencyHistogram::kHighestTrackableNs);
  EXPECT_DOUBLE_EQ(h.Mean(), (1.0 * kMs + static_cast<double>(huge)) / 2);
  // Two hours is still resolved to 1%.
  LatencyHistogram two_hours;
  two_hours.Record(0);
  two_hours.Record(2 * kHour);
  two_hours.Record(huge);
  EXPECT_LE(RelativeError(two_hours.ValueAtPercentile(50), 2 * kHour), 0.01);
}

TEST(LatencyHistogramTest, NegativeValuesCountAsZero) {
  LatencyHistogram h;
  h.Record(-5);
  h.Record(10);
  EXPECT_EQ(h.Count(), 2u);
  EXPECT_EQ(h.Min(), 0);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
  EXPECT_DOUBLE_EQ(h.Mean(), 5.0);
}

TEST(LatencyHistogramTest, MemoryStaysSmall) {
  LatencyHistogram h;
  h.Record(5 * kMs);
  EXPECT_GT(h.MemoryBytes(), 0u);
  EXPECT_LE(h.MemoryBytes(), 32 * sizeof(std::uint64_t));  // one 32-bucket chunk
  h.Record(0);
  h.Record(1000 * kHour);  // the whole range
  EXPECT_LE(h.MemoryBytes(), 64u * 1024);
  EXPECT_LE(sizeof(LatencyHistogram), 80u);
}

// Latencies as a run second sees them: most around a millisecond, a tail to seconds, a few huge
// (clamped) and a few zero; counts above one and above 2^32 so the packed counts take many bytes.
LatencyHistogram RunSecondLike(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> typical(std::log(1.0 * kMs), 0.6);
  std::uniform_int_distribution<std::int64_t> tail(1 * kSec, 5 * kSec);
  LatencyHistogram h;
  for (int i = 0; i < 5'000; ++i) h.Record(static_cast<std::int64_t>(typical(rng)));
  for (int i = 0; i < 20; ++i) h.Record(tail(rng), 3);
  h.Record(0);
  h.Record(100 * kHour);
  h.Record(7 * kMs, std::uint64_t{1} << 40);
  return h;
}

// Every query a caller can make, with the answers compared one by one.
void ExpectSameAnswers(const LatencyHistogram& a, const LatencyHistogram& b) {
  EXPECT_EQ(a.Count(), b.Count());
  EXPECT_EQ(a.empty(), b.empty());
  EXPECT_EQ(a.Min(), b.Min());
  EXPECT_EQ(a.Max(), b.Max());
  EXPECT_EQ(a.Mean(), b.Mean());
  for (double p = 0; p <= 100.0; p += 0.25) ASSERT_EQ(a.ValueAtPercentile(p), b.ValueAtPercentile(p)) << "p" << p;
  for (const double p : {-1.0, 1e-9, 99.999, 99.99999, 1000.0}) EXPECT_EQ(a.ValueAtPercentile(p), b.ValueAtPercentile(p)) << p;
  EXPECT_EQ(a.ToBuckets(), b.ToBuckets());
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(b == a);
}

TEST(LatencyHistogramCompactTest, CompactAnswersEveryQueryExactlyAsBefore) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const LatencyHistogram dense = RunSecondLike(seed);
    LatencyHistogram compact = dense;
    compact.Compact();
    ASSERT_TRUE(compact.is_compact());
    ASSERT_FALSE(dense.is_compact());
    ExpectSameAnswers(compact, dense);
    EXPECT_EQ(LatencyHistogram::FromBuckets(compact.ToBuckets()), dense);
    // Smaller: the dense window spans ~40 octaves here; the packed bytes only the used buckets.
    EXPECT_LT(compact.MemoryBytes() * 4, dense.MemoryBytes()) << compact.MemoryBytes() << " vs " << dense.MemoryBytes();
    LatencyHistogram twice = compact;
    twice.Compact();  // no-op
    EXPECT_EQ(twice.MemoryBytes(), compact.MemoryBytes());
    ExpectSameAnswers(twice, dense);
  }
}

TEST(LatencyHistogramCompactTest, SmallAndEdgeHistogramsCompactExactly) {
  LatencyHistogram empty;
  empty.Compact();
  EXPECT_FALSE(empty.is_compact());
  EXPECT_EQ(empty.MemoryBytes(), 0u);
  ExpectSameAnswers(empty, LatencyHistogram());
  for (const std::int64_t value : {std::int64_t{0}, std::int64_t{255}, std::int64_t{256}, 1 * kMs, 100 * kHour}) {
    LatencyHistogram one;
    one.Record(value, 3);
    LatencyHistogram compact = one;
    compact.Compact();
    EXPECT_TRUE(compact.is_compact());
    EXPECT_EQ(compact.MemoryBytes(), sizeof(std::uint64_t)) << value;  // one word holds (delta, count)
    ExpectSameAnswers(compact, one);
  }
}

TEST(LatencyHistogramCompactTest, NeighbouringBucketsWithSmallCountsTakeOneByteEach) {
  // Values below 256 ns have a bucket each: 256 neighbours, counts up to 63 fit one byte.
  LatencyHistogram run;
  for (std::int64_t v = 0; v < 256; ++v) run.Record(v, 1 + static_cast<std::uint64_t>(v % 63));
  LatencyHistogram compact = run;
  compact.Compact();
  EXPECT_EQ(compact.MemoryBytes(), 256u);
  ExpectSameAnswers(compact, run);
  // Gaps, a large count and one too large to pack: each still answers exactly.
  LatencyHistogram sparse;
  sparse.Record(3);
  sparse.Record(1 * kMs, std::uint64_t{1} << 40);
  sparse.Record(100 * kHour, 64);
  LatencyHistogram packed = sparse;
  packed.Compact();
  EXPECT_TRUE(packed.is_compact());
  ExpectSameAnswers(packed, sparse);
  LatencyHistogram huge;
  huge.Record(1 * kMs, std::uint64_t{1} << 63);
  LatencyHistogram stays = huge;
  stays.Compact();
  EXPECT_FALSE(stays.is_compact());
  ExpectSameAnswers(stays, huge);
}

TEST(LatencyHistogramCompactTest, RecordAndMergeIntoACompactHistogramExpandItFirst) {
  const LatencyHistogram a = RunSecondLike(4);
  const LatencyHistogram b = RunSecondLike(5);
  LatencyHistogram compact = a;
  compact.Compact();
  LatencyHistogram dense = a;
  compact.Record(3 * kSec);       // a straggler completing late
  compact.Record(1, 2);           // below every bucket used so far: the window grows down
  dense.Record(3 * kSec);
  dense.Record(1, 2);
  EXPECT_FALSE(compact.is_compact());
  ExpectSameAnswers(compact, dense);
  EXPECT_EQ(compact.MemoryBytes(), dense.MemoryBytes());  // the very same window

  // Merge: compact as the source, as the destination, and both.
  LatencyHistogram both = a;
  both.Merge(b);
  LatencyHistogram compact_a = a, compact_b = b;
  compact_a.Compact();
  compact_b.Compact();
  LatencyHistogram into_dense = a;
  into_dense.Merge(compact_b);
  ExpectSameAnswers(into_dense, both);
  LatencyHistogram into_compact = compact_a;
  into_compact.Merge(b);
  ExpectSameAnswers(into_compact, both);
  LatencyHistogram compact_into_compact = compact_a;
  compact_into_compact.Merge(compact_b);
  ExpectSameAnswers(compact_into_compact, both);
  LatencyHistogram from_empty;
  from_empty.Merge(compact_a);
  ExpectSameAnswers(from_empty, a);
  LatencyHistogram self = compact_a;
  self.Merge(self);
  LatencyHistogram doubled = a;
  doubled.Merge(a);
  ExpectSameAnswers(self, doubled);
  compact_a.Merge(LatencyHistogram());  // an empty source changes nothing, not even the form
  EXPECT_TRUE(compact_a.is_compact());
}

TEST(LatencyHistogramCompactTest, EqualityComparesCallsNotForm) {
  // Same count, min, max and sum; different buckets in between.
  LatencyHistogram x, y;
  for (const std::int64_t ms : {1, 4, 4, 7}) x.Record(ms * kMs);
  for (const std::int64_t ms : {1, 3, 5, 7}) y.Record(ms * kMs);
  LatencyHistogram cx = x, cy = y;
  cx.Compact();
  cy.Compact();
  EXPECT_FALSE(x == y);
  EXPECT_FALSE(cx == y);
  EXPECT_FALSE(x == cy);
  EXPECT_FALSE(cx == cy);
  EXPECT_TRUE(cx == x);
}

TEST(LatencyHistogramTest, ResetAndCopyAreValueSemantics) {
  LatencyHistogram h;
  h.Record(7 * kMs, 3);
  LatencyHistogram copy = h;
  h.Record(9 * kMs);
  EXPECT_EQ(copy.Count(), 3u);
  EXPECT_EQ(copy.Max(), 7 * kMs);
  EXPECT_EQ(h.Count(), 4u);
  h.Reset();
  EXPECT_EQ(h, LatencyHistogram());
  EXPECT_EQ(h.MemoryBytes(), 0u);
  h.Record(1);
  EXPECT_EQ(h.Min(), 1);
  EXPECT_EQ(h.Max(), 1);
}

}  // namespace
}  // namespace aftershock::metrics
