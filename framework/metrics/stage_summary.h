// StageSummary: a Vegeta-style report of a load timeline, per stage and in total.
//
// Seconds are grouped by SecondBucket::stage in order of first appearance (seconds with an empty
// stage name belong to no stage, but count in the total); a final entry named "total" covers the
// whole timeline. The text report reads like `vegeta report`; Markdown and JSON carry the same
// figures for CI summaries and tools.
//
//   std::vector<StageSummary> summary = SummarizeStages(timeline);
//   WriteStageReport(summary, std::cout);
//   WriteStageReportJson(summary, json_file);
#ifndef AFTERSHOCK_FRAMEWORK_METRICS_STAGE_SUMMARY_H_
#define AFTERSHOCK_FRAMEWORK_METRICS_STAGE_SUMMARY_H_

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "framework/common/call_code.h"
#include "framework/metrics/load_timeline.h"

namespace aftershock::metrics {

struct StageSummary {
  std::string stage;
  std::uint64_t requests = 0;     // offered: issued + shed
  std::uint64_t ok = 0;
  std::uint64_t failed = 0;       // final failures of issued calls plus shed
  std::uint64_t shed = 0;
  double duration_seconds = 0;    // seconds labelled with this stage (the whole timeline for "total")
  double rate = 0;                // requests / duration
  double throughput = 0;          // ok / duration
  double success_ratio = 0;       // ok / requests, 0 when there were none
  double latency_min_ms = 0;      // over every completed call, from its intended send time
  double mean_ms = 0;
  double p50_ms = 0;
  double p90_ms = 0;
  double p95_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
  std::map<CallCode, std::uint64_t> failures_by_code;  // shed under kCodeShed; zero counts omitted
};

std::vector<StageSummary> SummarizeStages(const LoadTimeline& timeline);

// Text report in the spirit of `vegeta report`, one block per entry separated by blank lines.
void WriteStageReport(const std::vector<StageSummary>& summaries, std::ostream& out);
// A Markdown table, one row per entry.
void WriteStageReportMarkdown(const std::vector<StageSummary>& summaries, std::ostream& out);
// A JSON array of objects whose keys are the StageSummary field names; failures_by_code is an object
// keyed by CallCodeName. One object per line.
void WriteStageReportJson(const std::vector<StageSummary>& summaries, std::ostream& out);

}  // namespace aftershock::metrics

#endif  // AFTERSHOCK_FRAMEWORK_METRICS_STAGE_SUMMARY_H_
