#include "framework/metrics/timeline_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>

namespace aftershock::metrics {
namespace {

// A timeline with every kind of field set, histograms over a wide range of values.
LoadTimeline Populated(std::uint64_t seed) {
  LoadTimeline t(RunClock(Clock::time_point{}, 1'796'000'000'000));
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> latency(14.0, 1.5);  // ~1 ms median, long tail
  for (int s = 0; s < 4; ++s) {
    SecondBucket& b = t.At(s);
    b.stage = s < 2 ? "warm-up" : "over load/100%";
    for (int i = 0; i < 500; ++i) {
      const auto v = static_cast<std::int64_t>(latency(rng));
      ++b.offered;
      b.latency.Record(v);
      if (i % 10 == 0) {
        ++b.failed;
        ++b.failed_by_code[i % 20 == 0 ? 14 : 503];
        if (i % 20 == 0) ++b.indeterminate;
      } else {
        ++b.ok;
        b.ok_latency.Record(v);
      }
      b.dispatch_lag.Record(static_cast<std::int64_t>(rng() % 200'000));
      t.RecordOkCompletion(s * 1'000'000'000LL + i * 1'900'000LL);
    }
    b.shed = 3;
    b.retries = 2;
    b.first_attempt_failed = 3;
    b.generator_failed = 1;
    b.first_ok_of_intended_ns = s * 1'000'000'000LL + 1234;
  }
  t.RecordOffered(5);
  t.RecordOffered(3'999'000'000LL);
  t.At(5);  // an empty second at the end
  return t;
}

void ExpectSameTimeline(const LoadTimeline& a, const LoadTimeline& b) {
  EXPECT_EQ(a.clock().start_unix_ms(), b.clock().start_unix_ms());
  EXPECT_EQ(a.offered_begin_ns(), b.offered_begin_ns());
  EXPECT_EQ(a.offered_end_ns(), b.offered_end_ns());
  ASSERT_EQ(a.seconds().size(), b.seconds().size());
  for (std::size_t i = 0; i < a.seconds().size(); ++i) {
    const SecondBucket& x = a.seconds()[i];
    const SecondBucket& y = b.seconds()[i];
    EXPECT_EQ(x.stage, y.stage) << i;
    EXPECT_EQ(x.offered, y.offered) << i;
    EXPECT_EQ(x.ok, y.ok) << i;
    EXPECT_EQ(x.ok_completed, y.ok_completed) << i;
    EXPECT_EQ(x.failed, y.failed) << i;
    EXPECT_EQ(x.shed, y.shed) << i;
    EXPECT_EQ(x.retries, y.retries) << i;
    EXPECT_EQ(x.first_attempt_failed, y.first_attempt_failed) << i;
    EXPECT_EQ(x.indeterminate, y.indeterminate) << i;
    EXPECT_EQ(x.generator_failed, y.generator_failed) << i;
    EXPECT_EQ(x.failed_by_code, y.failed_by_code) << i;
    EXPECT_EQ(x.latency, y.latency) << i;
    EXPECT_EQ(x.ok_latency, y.ok_latency) << i;
    EXPECT_EQ(x.dispatch_lag, y.dispatch_lag) << i;
    EXPECT_EQ(x.first_ok_of_intended_ns, y.first_ok_of_intended_ns) << i;
    EXPECT_EQ(x.first_ok_completed_ns, y.first_ok_completed_ns) << i;
    EXPECT_EQ(x.last_ok_completed_ns, y.last_ok_completed_ns) << i;
    EXPECT_EQ(x.longest_ok_gap_ns, y.longest_ok_gap_ns) << i;
    EXPECT_EQ(x.longest_ok_gap_end_ns, y.longest_ok_gap_end_ns) << i;
  }
}

std::string Written(const LoadTimeline& t, TimelineFileHeader h = {}) {
  std::ostringstream out;
  WriteTimelineFile(t, h, out);
  return out.str();
}

TimelineFile Read(const std::string& text) {
  std::istringstream in(text);
  return ReadTimelineFile(in, "w0.timeline");
}

std::string ErrorOf(const std::string& text) {
  try {
    Read(text);
  } catch (const TimelineFileError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TimelineFileTest, RoundTripIsExact) {
  const LoadTimeline t = Populated(7);
  const TimelineFile read = Read(Written(t, {.worker = 1, .workers = 3}));
  EXPECT_EQ(read.header, (TimelineFileHeader{.worker = 1, .workers = 3, .start_unix_ms = 1'796'000'000'000}));
  ExpectSameTimeline(read.timeline, t);
  // Written again, byte for byte the same.
  EXPECT_EQ(Written(read.timeline, {.worker = 1, .workers = 3}), Written(t, {.worker = 1, .workers = 3}));
}

TEST(TimelineFileTest, MergingReadFilesEqualsMergingTheTimelines) {
  const LoadTimeline a = Populated(1), b = Populated(2);
  LoadTimeline direct = a;
  direct.Merge(b);
  LoadTimeline via_files = Read(Written(a, {.worker = 0, .workers = 2})).timeline;
  via_files.Merge(Read(Written(b, {.worker = 1, .workers = 2})).timeline);
  ExpectSameTimeline(via_files, direct);
  // Bucket-wise: the merged p99 is the p99 of one histogram that recorded both.
  LatencyHistogram both = a.seconds()[2].latency;
  both.Merge(b.seconds()[2].latency);
  EXPECT_EQ(via_files.seconds()[2].latency.ValueAtPercentile(99), both.ValueAtPercentile(99));
}

TEST(TimelineFileTest, ATruncatedFileIsRefusedNamingWhy) {
  const std::string text = Written(Populated(3));
  const std::string cut = text.substr(0, text.rfind("end "));
  EXPECT_EQ(ErrorOf(cut),
            "w0.timeline: no end line after 6 seconds: the file is truncated (its worker died or was killed before "
            "finishing)");
  EXPECT_EQ(ErrorOf(""), "w0.timeline: empty: not a timeline file (the worker may have died before writing)");
  // Cut in the middle of a line: that line is malformed, or the end line is missing.
  EXPECT_NE(ErrorOf(text.substr(0, text.size() / 2)), "(no error)");
}

TEST(TimelineFileTest, MalformedRecordsNameTheLine) {
  const std::string good = Written(Populated(4));
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  EXPECT_EQ(ErrorOf("hello\n"), "w0.timeline:1: not a timeline file: expected 'aftershock-load-timeline 2'");
  EXPECT_EQ(ErrorOf(replaced("worker 0 1 ", "worker 2 1 ")), "w0.timeline:2: worker 2 of 1 is not a worker index");
  EXPECT_EQ(ErrorOf(replaced("second 1 ", "second 2 ")), "w0.timeline:9: second 2 where 1 was due");
  EXPECT_EQ(ErrorOf(replaced("end 6", "end 7")), "w0.timeline:" +
                                                     std::to_string(std::count(good.begin(), good.end(), '\n')) +
                                                     ": end says 7 seconds, the file has 6");
  EXPECT_NE(ErrorOf(replaced("hist 0 latency ", "hist 0 p99 ")).find("unknown histogram 'p99'"), std::string::npos);
  EXPECT_NE(ErrorOf(replaced("codes 0 14:", "codes 0 x:")).find("code 'x:"), std::string::npos);
  EXPECT_NE(ErrorOf(good + "more\n").find("text after the end line"), std::string::npos);
}

TEST(TimelineFileTest, HistogramBucketsAreCheckedWhenRead) {
  LatencyHistogram h;
  h.Record(1000);
  h.Record(5'000'000);
  LatencyHistogram::Buckets b = h.ToBuckets();
  EXPECT_EQ(LatencyHistogram::FromBuckets(b), h);
  auto error = [](LatencyHistogram::Buckets x) {
    try {
      LatencyHistogram::FromBuckets(x);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  LatencyHistogram::Buckets swapped = b;
  std::swap(swapped.counts[0], swapped.counts[1]);
  EXPECT_NE(error(swapped).find("is not increasing"), std::string::npos);
  LatencyHistogram::Buckets zero = b;
  zero.counts[0].second = 0;
  EXPECT_NE(error(zero).find("has count 0"), std::string::npos);
  LatencyHistogram::Buckets wrong_min = b;
  wrong_min.min = 2'000'000;
  EXPECT_NE(error(wrong_min).find("is not in the first bucket"), std::string::npos);
  LatencyHistogram::Buckets out_of_range = b;
  out_of_range.counts.back().first = 100000;
  EXPECT_NE(error(out_of_range).find("is outside"), std::string::npos);
  EXPECT_EQ(LatencyHistogram::FromBuckets({}), LatencyHistogram());
}

}  // namespace
}  // namespace aftershock::metrics
