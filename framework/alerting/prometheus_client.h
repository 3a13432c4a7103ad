// A PromQL client for a Prometheus on loopback: instant and range queries, and the alerts page.
//
// Each request is one synchronous HTTP GET with a deadline. Errors (no connection, HTTP status,
// "status":"error" with Prometheus' own message) throw std::runtime_error naming the query.
//
//   PrometheusClient prometheus("127.0.0.1", 9090);
//   std::optional<double> ratio = prometheus.QueryScalar(
//       "sum(rate(work_requests_total{code=~\"5..\"}[1m])) / sum(rate(work_requests_total[1m]))");
//   for (const AlertState& a : prometheus.Alerts()) ... a.name, a.state ("pending" | "firing")
//
// Known limitation of what it reads (seed 001): work_request_duration_seconds measures request
// processing, not queueing in a saturated server, so latency figures and the LatencySLOViolation
// alert understate overload; the latency alert rarely fires (see post_run_summary.h).
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_PROMETHEUS_CLIENT_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_PROMETHEUS_CLIENT_H_

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/alerting/wall_time.h"
#include "framework/alerting/webhook_payload.h"

namespace aftershock::alerting {

struct AlertState {
  std::string name;   // labels["alertname"]
  std::string state;  // "pending" | "firing"
  LabelSet labels;
  std::string active_at;  // RFC 3339, as reported
};

struct Sample {
  LabelSet labels;
  double value = 0;
};

struct RangeSeries {
  LabelSet labels;
  std::vector<std::pair<WallTime, double>> points;
};

class PrometheusClient {
 public:
  PrometheusClient(std::string host, int port,
                   std::chrono::milliseconds timeout = std::chrono::seconds(5));

  // The single value of a scalar result or of a one-series vector. nullopt for an empty vector or a
  // NaN value (e.g. a quantile over no traffic); throws when the vector has several series.
  std::optional<double> QueryScalar(const std::string& promql,
                                    std::optional<WallTime> at = std::nullopt) const;
  // Every series of an instant query (a scalar comes back as one sample without labels).
  std::vector<Sample> QueryVector(const std::string& promql,
                                  std::optional<WallTime> at = std::nullopt) const;
  std::vector<RangeSeries> QueryRange(const std::string& promql, WallTime start, WallTime end,
                                      std::chrono::milliseconds step) const;
  // The largest non-NaN value over every series and point; nullopt when there is none.
  std::optional<double> QueryRangeMax(const std::string& promql, WallTime start, WallTime end,
                                      std::chrono::milliseconds step) const;
  // /api/v1/alerts: the alerts that are pending or firing now.
  std::vector<AlertState> Alerts() const;

  const std::string& host() const { return host_; }
  int port() const { return port_; }

 private:
  // GET `target`, checks HTTP 200 and "status":"success", returns the body.
  std::string Get(const std::string& target, const std::string& what) const;

  std::string host_;
  int port_;
  std::chrono::milliseconds timeout_;
};

// Response parsing, exposed for tests with recorded bodies. Each throws std::runtime_error on a
// malformed body or an error status.
std::vector<Sample> ParseInstantQueryResponse(const std::string& body);
std::vector<RangeSeries> ParseRangeQueryResponse(const std::string& body);
std::vector<AlertState> ParseAlertsResponse(const std::string& body);

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_PROMETHEUS_CLIENT_H_
