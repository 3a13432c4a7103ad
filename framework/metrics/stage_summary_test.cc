#include "framework/metrics/stage_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "framework/metrics/internal/test_util.h"

namespace aftershock::metrics {
namespace {

using internal::kMs;
using internal::Lines;

// warm-up: seconds 0-1, 11 offered, 9 ok, 1 failed, 1 shed; latencies 1 ms x6, 2 ms x3, 4 ms.
// spike:   second 2, 10 offered, 6 ok, 4 failed (3 UNAVAILABLE, 1 DEADLINE_EXCEEDED); 2 ms x6, 1 s x4.
// second 3 carries no stage and no traffic.
LoadTimeline TwoStageTimeline() {
  LoadTimeline timeline;
  SecondBucket& s0 = timeline.At(0);
  s0.stage = "warm-up";
  s0.offered = 6;
  s0.ok = 5;
  s0.shed = 1;
  s0.failed_by_code[kCodeShed] = 1;
  s0.latency.Record(1 * kMs, 5);
  s0.ok_latency.Record(1 * kMs, 5);
  SecondBucket& s1 = timeline.At(1);
  s1.stage = "warm-up";
  s1.offered = 5;
  s1.ok = 4;
  s1.failed = 1;
  s1.failed_by_code[kCodeUnavailable] = 1;
  s1.latency.Record(1 * kMs);
  s1.latency.Record(2 * kMs, 3);
  s1.latency.Record(4 * kMs);
  SecondBucket& s2 = timeline.At(2);
  s2.stage = "spike";
  s2.offered = 10;
  s2.ok = 6;
  s2.failed = 4;
  s2.indeterminate = 1;
  s2.failed_by_code[kCodeUnavailable] = 3;
  s2.failed_by_code[kCodeDeadlineExceeded] = 1;
  s2.latency.Record(2 * kMs, 6);
  s2.latency.Record(1000 * kMs, 4);
  timeline.At(3);
  return timeline;
}

TEST(StageSummaryTest, SummarizesEachStageAndTotal) {
  const std::vector<StageSummary> summary = SummarizeStages(TwoStageTimeline());
  ASSERT_EQ(summary.size(), 3u);
  const StageSummary& warm = summary[0];
  EXPECT_EQ(warm.stage, "warm-up");
  EXPECT_EQ(warm.requests, 11u);
  EXPECT_EQ(warm.ok, 9u);
  EXPECT_EQ(warm.failed, 2u);
  EXPECT_EQ(warm.shed, 1u);
  EXPECT_EQ(warm.duration_seconds, 2.0);
  EXPECT_EQ(warm.rate, 5.5);
  EXPECT_EQ(warm.throughput, 4.5);
  EXPECT_DOUBLE_EQ(warm.success_ratio, 9.0 / 11.0);
  EXPECT_EQ(warm.latency_min_ms, 1.0);
  EXPECT_DOUBLE_EQ(warm.mean_ms, 1.6);
  EXPECT_DOUBLE_EQ(warm.p50_ms, 1.001472);  // midpoint of 1 ms's bucket
  EXPECT_DOUBLE_EQ(warm.p90_ms, 2.002944);
  EXPECT_EQ(warm.p95_ms, 4.0);
  EXPECT_EQ(warm.p99_ms, 4.0);
  EXPECT_EQ(warm.max_ms, 4.0);
  EXPECT_EQ(warm.failures_by_code, (std::map<CallCode, std::uint64_t>{{kCodeShed, 1}, {kCodeUnavailable, 1}}));

  const StageSummary& spike = summary[1];
  EXPECT_EQ(spike.stage, "spike");
  EXPECT_EQ(spike.requests, 10u);
  EXPECT_EQ(spike.failed, 4u);
  EXPECT_EQ(spike.duration_seconds, 1.0);
  EXPECT_EQ(spike.rate, 10.0);
  EXPECT_EQ(spike.throughput, 6.0);
  EXPECT_EQ(spike.success_ratio, 0.6);
  EXPECT_DOUBLE_EQ(spike.mean_ms, 401.2);
  EXPECT_EQ(spike.p90_ms, 1000.0);

  const StageSummary& total = summary[2];
  EXPECT_EQ(total.stage, "total");
  EXPECT_EQ(total.requests, 21u);
  EXPECT_EQ(total.ok, 15u);
  EXPECT_EQ(total.failed, 6u);
  EXPECT_EQ(total.shed, 1u);
  EXPECT_EQ(total.duration_seconds, 4.0);  // the unlabelled second 3 counts in the total
  EXPECT_EQ(total.rate, 5.25);
  EXPECT_EQ(total.throughput, 3.75);
  EXPECT_DOUBLE_EQ(total.mean_ms, 201.4);
  EXPECT_DOUBLE_EQ(total.p50_ms, 2.002944);
  EXPECT_EQ(total.p99_ms, 1000.0);
  EXPECT_EQ(total.failures_by_code,
            (std::map<CallCode, std::uint64_t>{{kCodeShed, 1}, {kCodeDeadlineExceeded, 1}, {kCodeUnavailable, 4}}));
}

TEST(StageSummaryTest, EmptyTimelineGivesAZeroTotal) {
  const std::vector<StageSummary> summary = SummarizeStages(LoadTimeline());
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(summary[0].stage, "total");
  EXPECT_EQ(summary[0].requests, 0u);
  EXPECT_EQ(summary[0].rate, 0.0);
  EXPECT_EQ(summary[0].success_ratio, 0.0);
  EXPECT_EQ(summary[0].max_ms, 0.0);
}

TEST(StageSummaryTest, TextReportReadsLikeVegeta) {
  std::ostringstream out;
  WriteStageReport(SummarizeStages(TwoStageTimeline()), out);
  const std::vector<std::string> expected = {
      "Stage         [name]                            warm-up",
      "Requests      [total, rate, throughput]         11, 5.50, 4.50",
      "Duration      [total]                           2s",
      "Latencies     [min, mean, 50, 90, 95, 99, max]  1.000ms, 1.600ms, 1.001ms, 2.003ms, 4.000ms, 4.000ms, 4.000ms",
      "Success       [ratio, ok]                       81.82%, 9",
      "Failures      [total, shed]                     2, 1",
      "Failure Codes [code:count]                      SHED:1  UNAVAILABLE:1",
      "",
      "Stage         [name]                            spike",
      "Requests      [total, rate, throughput]         10, 10.00, 6.00",
      "Duration      [total]                           1s",
      "Latencies     [min, mean, 50, 90, 95, 99, max]  2.000ms, 401.200ms, 2.003ms, 1000.000ms, 1000.000ms, "
      "1000.000ms, 1000.000ms",
      "Success       [ratio, ok]                       60.00%, 6",
      "Failures      [total, shed]                     4, 0",
      "Failure Codes [code:count]                      DEADLINE_EXCEEDED:1  UNAVAILABLE:3",
      "",
      "Stage         [name]                            total",
      "Requests      [total, rate, throughput]         21, 5.25, 3.75",
      "Duration      [total]                           4s",
      "Latencies     [min, mean, 50, 90, 95, 99, max]  1.000ms, 201.400ms, 2.003ms, 1000.000ms, 1000.000ms, "
      "1000.000ms, 1000.000ms",
      "Success       [ratio, ok]                       71.43%, 15",
      "Failures      [total, shed]                     6, 1",
      "Failure Codes [code:count]                      SHED:1  DEADLINE_EXCEEDED:1  UNAVAILABLE:4",
  };
  EXPECT_EQ(Lines(out.str()), expected);
}

TEST(StageSummaryTest, TextReportWithoutFailuresHasNoTrailingBlanks) {
  LoadTimeline timeline;
  timeline.At(0).stage = "calm";
  timeline.At(0).offered = 1;
  timeline.At(0).ok = 1;
  timeline.At(0).latency.Record(3 * kMs);
  std::ostringstream out;
  WriteStageReport(SummarizeStages(timeline), out);
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 15u);
  EXPECT_EQ(lines[6], "Failure Codes [code:count]");
}

TEST(StageSummaryTest, MarkdownTable) {
  std::ostringstream out;
  WriteStageReportMarkdown(SummarizeStages(TwoStageTimeline()), out);
  const std::vector<std::string> expected = {
      "| stage | requests | ok | failed | shed | duration_s | rate | throughput | success | min_ms | mean_ms | p50_ms "
      "| p90_ms | p95_ms | p99_ms | max_ms | failures |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
      "| warm-up | 11 | 9 | 2 | 1 | 2 | 5.50 | 4.50 | 81.82% | 1.000 | 1.600 | 1.001 | 2.003 | 4.000 | 4.000 | 4.000 "
      "| SHED:1 UNAVAILABLE:1 |",
      "| spike | 10 | 6 | 4 | 0 | 1 | 10.00 | 6.00 | 60.00% | 2.000 | 401.200 | 2.003 | 1000.000 | 1000.000 "
      "| 1000.000 | 1000.000 | DEADLINE_EXCEEDED:1 UNAVAILABLE:3 |",
      "| total | 21 | 15 | 6 | 1 | 4 | 5.25 | 3.75 | 71.43% | 1.000 | 201.400 | 2.003 | 1000.000 | 1000.000 "
      "| 1000.000 | 1000.000 | SHED:1 DEADLINE_EXCEEDED:1 UNAVAILABLE:4 |",
  };
  EXPECT_EQ(Lines(out.str()), expected);
}

TEST(StageSummaryTest, MarkdownEscapesPipesAndMarksNoFailures) {
  LoadTimeline timeline;
  timeline.At(0).stage = "a|b";
  timeline.At(0).offered = 1;
  timeline.At(0).ok = 1;
  std::ostringstream out;
  WriteStageReportMarkdown(SummarizeStages(timeline), out);
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[2],
            "| a\\|b | 1 | 1 | 0 | 0 | 1 | 1.00 | 1.00 | 100.00% | 0.000 | 0.000 | 0.000 | 0.000 | 0.000 | 0.000 "
            "| 0.000 | - |");
}

TEST(StageSummaryTest, JsonArrayWithFieldNamesAsKeys) {
  std::ostringstream out;
  WriteStageReportJson(SummarizeStages(TwoStageTimeline()), out);
  const std::vector<std::string> expected = {
      "[",
      "  {\"stage\":\"warm-up\",\"requests\":11,\"ok\":9,\"failed\":2,\"shed\":1,\"duration_seconds\":2,\"rate\":5.5,"
      "\"throughput\":4.5,\"success_ratio\":0.8181818181818182,\"latency_min_ms\":1,\"mean_ms\":1.6,"
      "\"p50_ms\":1.001472,\"p90_ms\":2.002944,\"p95_ms\":4,\"p99_ms\":4,\"max_ms\":4,"
      "\"failures_by_code\":{\"SHED\":1,\"UNAVAILABLE\":1}},",
      "  {\"stage\":\"spike\",\"requests\":10,\"ok\":6,\"failed\":4,\"shed\":0,\"duration_seconds\":1,\"rate\":10,"
      "\"throughput\":6,\"success_ratio\":0.6,\"latency_min_ms\":2,\"mean_ms\":401.2,"
      "\"p50_ms\":2.002944,\"p90_ms\":1000,\"p95_ms\":1000,\"p99_ms\":1000,\"max_ms\":1000,"
      "\"failures_by_code\":{\"DEADLINE_EXCEEDED\":1,\"UNAVAILABLE\":3}},",
      "  {\"stage\":\"total\",\"requests\":21,\"ok\":15,\"failed\":6,\"shed\":1,\"duration_seconds\":4,\"rate\":5.25,"
      "\"throughput\":3.75,\"success_ratio\":0.7142857142857143,\"latency_min_ms\":1,\"mean_ms\":201.4,"
      "\"p50_ms\":2.002944,\"p90_ms\":1000,\"p95_ms\":1000,\"p99_ms\":1000,\"max_ms\":1000,"
      "\"failures_by_code\":{\"SHED\":1,\"DEADLINE_EXCEEDED\":1,\"UNAVAILABLE\":4}}",
      "]",
  };
  EXPECT_EQ(Lines(out.str()), expected);
}

TEST(StageSummaryTest, JsonEscapesStageNames) {
  std::vector<StageSummary> summary(1);
  summary[0].stage = "say \"hi\"\n\\";
  std::ostringstream out;
  WriteStageReportJson(summary, out);
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 3u);
  const std::string prefix = "  {\"stage\":\"say \\\"hi\\\"\\n\\\\\",\"requests\":0,";
  EXPECT_EQ(lines[1].substr(0, prefix.size()), prefix);
}

}  // namespace
}  // namespace aftershock::metrics
