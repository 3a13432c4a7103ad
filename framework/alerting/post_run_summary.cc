#include "framework/alerting/post_run_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "framework/alerting/prom_duration.h"

namespace aftershock::alerting {
namespace {

// A range covering [start, end], in whole milliseconds, at least 1 ms.
std::string RunRange(WallTime start, WallTime end) {
  const auto span = std::chrono::duration_cast<std::chrono::milliseconds>(end - start);
  return FormatPromDuration(std::max(span, std::chrono::milliseconds(1)));
}

std::string Figure(const std::optional<double>& value, const char* format, double factor = 1.0) {
  if (!value) return "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, *value * factor);
  return buffer;
}

}  // namespace

PostRunSummary Summarize(const PrometheusClient& client, WallTime start, WallTime end,
                         const SummaryOptions& options) {
  PostRunSummary summary;
  summary.start = start;
  summary.end = end;
  const std::string job = "job=\"" + options.job + "\"";
  const std::string all = "work_requests_total{" + job + "}";
  const std::string errors = "work_requests_total{" + job + ", code=~\"5..\"}";
  const std::string window = "[" + FormatPromDuration(options.rate_window) + "]";
  const std::string run = "[" + RunRange(start, end) + "]";

  summary.total_requests = client.QueryScalar("sum(increase(" + all + run + "))", end);
  summary.peak_request_rate =
      client.QueryRangeMax("sum(rate(" + all + window + "))", start, end, options.step);
  summary.peak_error_ratio = client.QueryRangeMax(
      "(sum(rate(" + errors + window + ")) or vector(0)) / sum(rate(" + all + window + "))", start,
      end, options.step);
  const std::string buckets =
      "sum by (le) (rate(work_request_duration_seconds_bucket{" + job + "}" + window + "))";
  summary.peak_p95_seconds =
      client.QueryRangeMax("histogram_quantile(0.95, " + buckets + ")", start, end, options.step);
  summary.peak_p99_seconds =
      client.QueryRangeMax("histogram_quantile(0.99, " + buckets + ")", start, end, options.step);
  const std::optional<double> restarts = client.QueryScalar(
      "sum(changes(process_start_time_seconds{" + job + "}" + run + "))", end);
  summary.restarts = restarts ? static_cast<int>(std::lround(*restarts)) : 0;

  std::set<std::string> fired;
  for (const Sample& sample :
       client.QueryVector("max_over_time(ALERTS{alertstate=\"firing\"}" + run + ")", end)) {
    const auto name = sample.labels.find("alertname");
    if (name != sample.labels.end()) fired.insert(name->second);
  }
  summary.alerts_fired.assign(fired.begin(), fired.end());
  summary.alerts_now = client.Alerts();
  return summary;
}

std::string FormatSummary(const PostRunSummary& summary) {
  std::string out;
  const auto line = [&out](const char* name, const std::string& value) {
    char buffer[128];
    std::snprintf(buffer, sizeof(buffer), "%-20s %s\n", name, value.c_str());
    out += buffer;
  };
  line("window", std::to_string(static_cast<long long>(ToUnixSeconds(summary.start))) + " .. " +
                     std::to_string(static_cast<long long>(ToUnixSeconds(summary.end))) +
                     " (unix s)");
  line("total requests", Figure(summary.total_requests, "%.0f"));
  line("peak rate", Figure(summary.peak_request_rate, "%.1f req/s"));
  line("peak error ratio", Figure(summary.peak_error_ratio, "%.2f %%", 100.0));
  line("peak p95", Figure(summary.peak_p95_seconds, "%.1f ms", 1000.0));
  line("peak p99", Figure(summary.peak_p99_seconds, "%.1f ms", 1000.0));
  line("restarts", std::to_string(summary.restarts));
  std::string fired;
  for (const std::string& name : summary.alerts_fired) fired += (fired.empty() ? "" : ", ") + name;
  line("alerts fired", fired.empty() ? "none" : fired);
  std::string now;
  for (const AlertState& alert : summary.alerts_now) {
    now += (now.empty() ? "" : ", ") + alert.name + " (" + alert.state + ")";
  }
  line("alerts now", now.empty() ? "none" : now);
  line("note", "latency is processing time only (queueing not measured)");
  return out;
}

}  // namespace aftershock::alerting
