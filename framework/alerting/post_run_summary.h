// The post-run summary of a load test, read back from Prometheus (seed 001: "save the run's
// summary yourself").
//
//   PostRunSummary s = Summarize(prometheus, run_start, run_end, {.rate_window = seconds(4)});
//   std::cout << FormatSummary(s);
//
// Known limitation (seed 001): work_request_duration_seconds measures request *processing*, not
// the time a request spends queued when the server is saturated. The p95/p99 here, and the
// LatencySLOViolation alert built on the same histogram, therefore understate what clients see
// under overload; the latency alert rarely fires even then, and the fast burn alert is the
// reliable signal. Client-side latency from the open-model runner is the truth for latency.
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_POST_RUN_SUMMARY_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_POST_RUN_SUMMARY_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "framework/alerting/prometheus_client.h"
#include "framework/alerting/wall_time.h"

namespace aftershock::alerting {

struct SummaryOptions {
  std::string job = "work";
  // The rate() window for the peak figures; at least 4 scrape intervals.
  std::chrono::milliseconds rate_window = std::chrono::minutes(1);
  // Resolution of the peak search.
  std::chrono::milliseconds step = std::chrono::seconds(15);
};

struct PostRunSummary {
  WallTime start{};
  WallTime end{};
  std::optional<double> total_requests;    // increase over [start, end]
  std::optional<double> peak_request_rate; // requests/s
  std::optional<double> peak_error_ratio;  // 5xx / all
  std::optional<double> peak_p95_seconds;  // from the histogram (processing time only)
  std::optional<double> peak_p99_seconds;
  int restarts = 0;                        // changes of process_start_time_seconds
  std::vector<std::string> alerts_fired;   // alertnames firing at any time in [start, end]
  std::vector<AlertState> alerts_now;      // pending/firing when summarized
};

PostRunSummary Summarize(const PrometheusClient& client, WallTime start, WallTime end,
                         const SummaryOptions& options = {});

// A few aligned lines, e.g. "peak error ratio   19.98 %".
std::string FormatSummary(const PostRunSummary& summary);

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_POST_RUN_SUMMARY_H_
