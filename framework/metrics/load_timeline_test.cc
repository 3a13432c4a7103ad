#include "framework/metrics/load_timeline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/metrics/internal/test_util.h"
#include "framework/metrics/stage_summary.h"
#include "framework/metrics/timeline_file.h"

namespace aftershock::metrics {
namespace {

using internal::kMs;
using internal::kUs;
using internal::Lines;

constexpr std::int64_t kStartUnixMs = 1'700'000'000'000;

// Three seconds: a warm-up second with an ok, a failure and a shed arrival, an empty second, and a
// steady second with an indeterminate deadline.
LoadTimeline SmallTimeline() {
  LoadTimeline timeline(RunClock(Clock::time_point{}, kStartUnixMs));
  SecondBucket& s0 = timeline.At(0);
  s0.stage = "warm-up";
  s0.offered = 4;
  s0.ok = 2;
  s0.failed = 1;
  s0.shed = 1;
  s0.retries = 1;
  s0.first_attempt_failed = 2;
  s0.failed_by_code[kCodeUnavailable] = 1;
  s0.failed_by_code[kCodeShed] = 1;
  s0.latency.Record(1 * kMs);
  s0.latency.Record(2 * kMs);
  s0.latency.Record(3 * kMs);
  s0.ok_latency.Record(1 * kMs);
  s0.ok_latency.Record(2 * kMs);
  s0.dispatch_lag.Record(100 * kUs);
  s0.dispatch_lag.Record(200 * kUs);
  s0.dispatch_lag.Record(250 * kUs);
  SecondBucket& s2 = timeline.At(2);
  s2.stage = "steady";
  s2.offered = 2;
  s2.ok = 1;
  s2.failed = 1;
  s2.indeterminate = 1;
  s2.failed_by_code[kCodeDeadlineExceeded] = 1;
  s2.failed_by_code[kCodeInternal] = 0;  // a zero count does not make a column
  s2.latency.Record(5 * kMs);
  s2.latency.Record(250 * kMs);
  s2.ok_latency.Record(5 * kMs);
  s2.dispatch_lag.Record(0, 2);
  return timeline;
}

TEST(LoadTimelineTest, AtGrowsWithEmptyBuckets) {
  LoadTimeline timeline;
  EXPECT_EQ(timeline.size(), 0);
  timeline.At(3).ok = 7;
  EXPECT_EQ(timeline.size(), 4);
  ASSERT_EQ(timeline.seconds().size(), 4u);
  EXPECT_EQ(timeline.seconds()[3].ok, 7u);
  EXPECT_EQ(timeline.seconds()[1].offered, 0u);
  EXPECT_TRUE(timeline.seconds()[1].latency.empty());
  timeline.At(1).offered = 2;  // no growth for an existing second
  EXPECT_EQ(timeline.size(), 4);
  EXPECT_EQ(timeline.At(3).ok, 7u);
  EXPECT_THROW(timeline.At(-1), std::out_of_range);
}

TEST(LoadTimelineTest, KeepsItsClock) {
  const LoadTimeline timeline(RunClock(Clock::time_point{}, kStartUnixMs));
  EXPECT_EQ(timeline.clock().start_unix_ms(), kStartUnixMs);
  EXPECT_EQ(timeline.clock().UnixMsOfSecond(2), kStartUnixMs + 2000);
}

TEST(LoadTimelineTest, MergeIsBucketWise) {
  LoadTimeline a = SmallTimeline();
  LoadTimeline b;
  b.At(0).offered = 1;
  b.At(0).failed = 1;
  b.At(0).failed_by_code[kCodeUnavailable] = 1;
  b.At(0).first_attempt_failed = 1;
  b.At(0).latency.Record(4 * kMs);
  b.At(1).stage = "warm-up";
  b.At(1).offered = 3;
  b.At(4).stage = "cool-down";
  b.At(4).ok = 2;
  a.Merge(b);
  ASSERT_EQ(a.size(), 5);
  EXPECT_EQ(a.clock().start_unix_ms(), kStartUnixMs);
  const SecondBucket& s0 = a.seconds()[0];
  EXPECT_EQ(s0.stage, "warm-up");
  EXPECT_EQ(s0.offered, 5u);
  EXPECT_EQ(s0.failed, 2u);
  EXPECT_EQ(s0.first_attempt_failed, 3u);
  EXPECT_EQ(s0.failed_by_code.at(kCodeUnavailable), 2u);
  EXPECT_EQ(s0.failed_by_code.at(kCodeShed), 1u);
  EXPECT_EQ(s0.latency.Count(), 4u);
  EXPECT_EQ(s0.latency.Max(), 4 * kMs);
  EXPECT_EQ(s0.ok_latency.Count(), 2u);
  EXPECT_EQ(s0.dispatch_lag.Count(), 3u);
  EXPECT_EQ(a.seconds()[1].stage, "warm-up");  // an empty stage takes the other's name
  EXPECT_EQ(a.seconds()[1].offered, 3u);
  EXPECT_EQ(a.seconds()[2].stage, "steady");
  EXPECT_EQ(a.seconds()[2].indeterminate, 1u);
  EXPECT_EQ(a.seconds()[4].stage, "cool-down");
  EXPECT_EQ(a.seconds()[4].ok, 2u);
}

TEST(LoadTimelineCsvTest, WritesExactRows) {
  std::ostringstream out;
  const std::size_t rows = WriteLoadTimelineCsv(SmallTimeline(), out);
  EXPECT_EQ(rows, 3u);
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "unix_ms,second,stage,offered,ok,ok_completed,failed,shed,retries,indeterminate,p50_ms,p90_ms,p99_ms,max_ms,"
            "ok_p99_ms,lag_p50_ms,lag_p99_ms,lag_max_ms,failed_SHED,failed_DEADLINE_EXCEEDED,failed_UNAVAILABLE");
  // p50 of {1, 2, 3} ms is the midpoint of 2 ms's bucket [1998848, 2007040) ns; the others clamp to max.
  EXPECT_EQ(lines[1], "1700000000000,0,warm-up,4,2,0,1,1,1,0,2.003,3.000,3.000,3.000,2.000,0.200,0.250,0.250,1,0,1");
  EXPECT_EQ(lines[2], "1700000001000,1,,0,0,0,0,0,0,0,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0,0,0");
  EXPECT_EQ(lines[3],
            "1700000002000,2,steady,2,1,0,1,0,0,1,5.000,250.000,250.000,250.000,5.000,0.000,0.000,0.000,0,1,0");
}

TEST(LoadTimelineCsvTest, EmptyTimelineIsHeaderOnly) {
  std::ostringstream out;
  EXPECT_EQ(WriteLoadTimelineCsv(LoadTimeline(), out), 0u);
  EXPECT_EQ(out.str(),
            "unix_ms,second,stage,offered,ok,ok_completed,failed,shed,retries,indeterminate,p50_ms,p90_ms,p99_ms,max_ms,"
            "ok_p99_ms,lag_p50_ms,lag_p99_ms,lag_max_ms\n");
}

TEST(LoadTimelineCsvTest, QuotesStageNamesThatNeedIt) {
  LoadTimeline timeline;
  timeline.At(0).stage = "ramp, \"fast\"";
  timeline.At(0).offered = 1;
  timeline.At(0).ok = 1;
  timeline.At(0).latency.Record(7 * kMs);
  timeline.At(0).ok_latency.Record(7 * kMs);
  std::ostringstream out;
  EXPECT_EQ(WriteLoadTimelineCsv(timeline, out), 1u);
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "0,0,\"ramp, \"\"fast\"\"\",1,1,0,0,0,0,0,7.000,7.000,7.000,7.000,7.000,0.000,0.000,0.000");
}

TEST(LoadTimelineTest, RecordOkCompletionKeepsFirstLastAndTheLongestGapOfItsCompletionSecond) {
  LoadTimeline timeline;
  timeline.RecordOkCompletion(2'100 * kMs);
  timeline.RecordOkCompletion(2'150 * kMs);
  timeline.RecordOkCompletion(2'700 * kMs);  // 550 ms after the last
  timeline.RecordOkCompletion(2'690 * kMs);  // recorded out of order: inside the gap already measured
  timeline.RecordOkCompletion(4'000 * kMs);
  const SecondBucket& s2 = timeline.seconds()[2];
  EXPECT_EQ(s2.ok_completed, 4u);
  EXPECT_EQ(s2.first_ok_completed_ns, 2'100 * kMs);
  EXPECT_EQ(s2.last_ok_completed_ns, 2'700 * kMs);
  EXPECT_EQ(s2.longest_ok_gap_ns, 550 * kMs);
  EXPECT_EQ(s2.longest_ok_gap_end_ns, 2'700 * kMs);
  EXPECT_EQ(timeline.seconds()[3].first_ok_completed_ns, -1);  // nothing completed in second 3
  EXPECT_EQ(timeline.seconds()[4].ok_completed, 1u);
}

TEST(LoadTimelineTest, OfferedWindowAndSubSecondFieldsMerge) {
  LoadTimeline a, b;
  a.RecordOffered(500 * kMs);
  a.RecordOffered(1'200 * kMs);
  b.RecordOffered(300 * kMs);
  b.RecordOffered(900 * kMs);
  a.RecordOkCompletion(1'100 * kMs);
  b.RecordOkCompletion(1'050 * kMs);
  b.RecordOkCompletion(1'900 * kMs);
  a.Merge(b);
  EXPECT_EQ(a.offered_begin_ns(), 300 * kMs);
  EXPECT_EQ(a.offered_end_ns(), 1'200 * kMs);
  EXPECT_EQ(a.seconds()[1].first_ok_completed_ns, 1'050 * kMs);
  EXPECT_EQ(a.seconds()[1].last_ok_completed_ns, 1'900 * kMs);
  EXPECT_EQ(a.seconds()[1].longest_ok_gap_ns, 850 * kMs);  // the larger of the two: an upper bound
  EXPECT_EQ(LoadTimeline().offered_begin_ns(), -1);
}

// Twenty seconds of a run with wide latency and lag ranges, failures and a stall: every output must
// read the same from it whether its seconds are compact or not.
LoadTimeline BusyTimeline() {
  LoadTimeline timeline(RunClock(Clock::time_point{}, kStartUnixMs));
  std::mt19937_64 rng(12);
  std::lognormal_distribution<double> latency(std::log(2.0 * kMs), 0.8);
  std::lognormal_distribution<double> lag(std::log(50.0 * kUs), 1.5);
  for (std::int64_t second = 0; second < 20; ++second) {
    SecondBucket& s = timeline.At(second);
    s.stage = second < 5 ? "ramp" : "steady";
    for (int i = 0; i < 500; ++i) {
      const auto ns = static_cast<std::int64_t>(latency(rng)) + (second == 12 ? 1'500 * kMs : 0);
      ++s.offered;
      s.dispatch_lag.Record(static_cast<std::int64_t>(lag(rng)));
      s.latency.Record(ns);
      if (i % 50 == 7) {
        ++s.failed;
        ++s.failed_by_code[i % 100 == 7 ? kCodeUnavailable : kCodeDeadlineExceeded];
      } else {
        ++s.ok;
        s.ok_latency.Record(ns);
      }
    }
  }
  return timeline;
}

struct Outputs {
  std::string csv, file, stages;
};

Outputs OutputsOf(const LoadTimeline& timeline) {
  std::ostringstream csv, file, stages;
  WriteLoadTimelineCsv(timeline, csv);
  WriteTimelineFile(timeline, {}, file);
  WriteStageReportJson(SummarizeStages(timeline), stages);
  return {csv.str(), file.str(), stages.str()};
}

TEST(LoadTimelineCompactTest, EveryOutputIsIdenticalWithAndWithoutCompaction) {
  const LoadTimeline timeline = BusyTimeline();
  LoadTimeline compacted = timeline;
  std::size_t dense_bytes = 0, compact_bytes = 0;
  for (std::int64_t second = 0; second < compacted.size(); ++second) {
    SecondBucket& s = compacted.At(second);
    dense_bytes += s.latency.MemoryBytes() + s.ok_latency.MemoryBytes() + s.dispatch_lag.MemoryBytes();
    s.Compact();
    ASSERT_TRUE(s.latency.is_compact() && s.ok_latency.is_compact() && s.dispatch_lag.is_compact()) << second;
    compact_bytes += s.latency.MemoryBytes() + s.ok_latency.MemoryBytes() + s.dispatch_lag.MemoryBytes();
  }
  EXPECT_LT(compact_bytes * 2, dense_bytes) << compact_bytes << " vs " << dense_bytes;
  const Outputs dense = OutputsOf(timeline);
  const Outputs compact = OutputsOf(compacted);
  EXPECT_EQ(Lines(compact.csv), Lines(dense.csv));
  EXPECT_EQ(Lines(compact.file), Lines(dense.file));
  EXPECT_EQ(Lines(compact.stages), Lines(dense.stages));
  EXPECT_EQ(Lines(dense.csv).size(), 21u);

  // A coordinator merging compact worker timelines gets the same as merging dense ones.
  LoadTimeline merged_dense = timeline, merged_compact = compacted;
  merged_dense.Merge(timeline);
  merged_compact.Merge(compacted);
  EXPECT_EQ(Lines(OutputsOf(merged_compact).csv), Lines(OutputsOf(merged_dense).csv));
}

TEST(LoadTimelineCompactTest, AStragglerRecordedIntoACompactSecondIsCountedExactly) {
  LoadTimeline timeline = BusyTimeline(), compacted = BusyTimeline();
  compacted.At(3).Compact();
  for (LoadTimeline* t : {&timeline, &compacted}) {
    SecondBucket& s = t->At(3);
    ++s.ok;
    s.latency.Record(1'900 * kMs);
    s.ok_latency.Record(1'900 * kMs);
  }
  EXPECT_FALSE(compacted.seconds()[3].latency.is_compact());
  EXPECT_TRUE(compacted.seconds()[3].dispatch_lag.is_compact());  // not written: stays compact
  EXPECT_EQ(compacted.seconds()[3].latency.Max(), 1'900 * kMs);
  EXPECT_EQ(Lines(OutputsOf(compacted).csv), Lines(OutputsOf(timeline).csv));
}

}  // namespace
}  // namespace aftershock::metrics
