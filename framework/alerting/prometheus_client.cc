#include "framework/alerting/prometheus_client.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "framework/net/http_exchange.h"

namespace aftershock::alerting {
namespace {

using nlohmann::json;

// Prometheus encodes sample values as strings ("1.5", "NaN", "+Inf").
double ParseValue(const json& value) {
  if (!value.is_string()) throw std::runtime_error("Prometheus: sample value is not a string");
  const std::string text = value.get<std::string>();
  if (text == "NaN") return std::nan("");
  if (text == "+Inf") return HUGE_VAL;
  if (text == "-Inf") return -HUGE_VAL;
  std::size_t used = 0;
  const double parsed = std::stod(text, &used);
  if (used != text.size()) throw std::runtime_error("Prometheus: bad sample value '" + text + "'");
  return parsed;
}

LabelSet ParseLabels(const json& object) {
  LabelSet labels;
  if (!object.is_object()) return labels;
  for (const auto& [name, value] : object.items()) {
    if (value.is_string()) labels[name] = value.get<std::string>();
  }
  return labels;
}

// Parses a body and returns its "data", throwing on "status":"error".
json Data(const std::string& body) {
  json root;
  try {
    root = json::parse(body);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(std::string("Prometheus: response is not JSON: ") + e.what());
  }
  if (!root.is_object()) throw std::runtime_error("Prometheus: response is not an object");
  const std::string status = root.value("status", "");
  if (status != "success") {
    throw std::runtime_error("Prometheus: status '" + status + "': " + root.value("errorType", "") +
                             ": " + root.value("error", ""));
  }
  if (!root.contains("data")) throw std::runtime_error("Prometheus: response has no data");
  return root["data"];
}

std::string UnixText(WallTime time) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.3f", ToUnixSeconds(time));
  return buffer;
}

std::string StepText(std::chrono::milliseconds step) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.3f", static_cast<double>(step.count()) / 1000.0);
  return buffer;
}

}  // namespace

std::vector<Sample> ParseInstantQueryResponse(const std::string& body) {
  const json data = Data(body);
  const std::string type = data.value("resultType", "");
  const json& result = data.at("result");
  std::vector<Sample> samples;
  if (type == "scalar") {
    if (!result.is_array() || result.size() != 2) throw std::runtime_error("Prometheus: bad scalar");
    samples.push_back(Sample{{}, ParseValue(result[1])});
  } else if (type == "vector") {
    for (const json& item : result) {
      const json& value = item.at("value");
      if (!value.is_array() || value.size() != 2) throw std::runtime_error("Prometheus: bad sample");
      samples.push_back(Sample{ParseLabels(item.value("metric", json::object())), ParseValue(value[1])});
    }
  } else {
    throw std::runtime_error("Prometheus: unexpected instant resultType '" + type + "'");
  }
  return samples;
}

std::vector<RangeSeries> ParseRangeQueryResponse(const std::string& body) {
  const json data = Data(body);
  const std::string type = data.value("resultType", "");
  if (type != "matrix") throw std::runtime_error("Prometheus: unexpected range resultType '" + type + "'");
  std::vector<RangeSeries> series;
  for (const json& item : data.at("result")) {
    RangeSeries one;
    one.labels = ParseLabels(item.value("metric", json::object()));
    for (const json& point : item.at("values")) {
      if (!point.is_array() || point.size() != 2 || !point[0].is_number()) {
        throw std::runtime_error("Prometheus: bad range point");
      }
      one.points.emplace_back(FromUnixSeconds(point[0].get<double>()), ParseValue(point[1]));
    }
    series.push_back(std::move(one));
  }
  return series;
}

std::vector<AlertState> ParseAlertsResponse(const std::string& body) {
  const json data = Data(body);
  std::vector<AlertState> alerts;
  for (const json& item : data.at("alerts")) {
    AlertState alert;
    alert.labels = ParseLabels(item.value("labels", json::object()));
    const auto name = alert.labels.find("alertname");
    alert.name = name == alert.labels.end() ? "" : name->second;
    alert.state = item.value("state", "");
    alert.active_at = item.value("activeAt", "");
    alerts.push_back(std::move(alert));
  }
  return alerts;
}

PrometheusClient::PrometheusClient(std::string host, int port, std::chrono::milliseconds timeout)
    : host_(std::move(host)), port_(port), timeout_(timeout) {}

std::string PrometheusClient::Get(const std::string& target, const std::string& what) const {
  const net::HttpResult result =
      net::HttpExchange({.method = "GET", .host = host_, .port = port_, .target = target},
                             timeout_);
  const std::string where = "Prometheus " + host_ + ":" + std::to_string(port_) + " " + what;
  if (!result.answered()) throw std::runtime_error(where + ": " + result.error);
  // 400/422/503 carry a JSON error body; Data() turns it into the message.
  if (result.status != 200) {
    try {
      Data(result.body);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(where + ": HTTP " + std::to_string(result.status) + ": " + e.what());
    }
    throw std::runtime_error(where + ": HTTP " + std::to_string(result.status));
  }
  return result.body;
}

std::vector<Sample> PrometheusClient::QueryVector(const std::string& promql,
                                                  std::optional<WallTime> at) const {
  std::string target = "/api/v1/query?query=" + net::UrlEncode(promql);
  if (at) target += "&time=" + UnixText(*at);
  const std::string what = "query '" + promql + "'";
  try {
    return ParseInstantQueryResponse(Get(target, what));
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    if (message.rfind("Prometheus ", 0) == 0) throw;
    throw std::runtime_error(what + ": " + message);
  }
}

std::optional<double> PrometheusClient::QueryScalar(const std::string& promql,
                                                    std::optional<WallTime> at) const {
  const std::vector<Sample> samples = QueryVector(promql, at);
  if (samples.empty()) return std::nullopt;
  if (samples.size() > 1) {
    throw std::runtime_error("query '" + promql + "' returned " + std::to_string(samples.size()) +
                             " series, expected one");
  }
  if (std::isnan(samples[0].value)) return std::nullopt;
  return samples[0].value;
}

std::vector<RangeSeries> PrometheusClient::QueryRange(const std::string& promql, WallTime start,
                                                      WallTime end,
                                                      std::chrono::milliseconds step) const {
  if (step.count() <= 0) throw std::invalid_argument("QueryRange: step must be positive");
  const std::string target = "/api/v1/query_range?query=" + net::UrlEncode(promql) +
                             "&start=" + UnixText(start) + "&end=" + UnixText(end) +
                             "&step=" + StepText(step);
  const std::string what = "range query '" + promql + "'";
  try {
    return ParseRangeQueryResponse(Get(target, what));
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    if (message.rfind("Prometheus ", 0) == 0) throw;
    throw std::runtime_error(what + ": " + message);
  }
}

std::optional<double> PrometheusClient::QueryRangeMax(const std::string& promql, WallTime start,
                                                      WallTime end,
                                                      std::chrono::milliseconds step) const {
  std::optional<double> peak;
  for (const RangeSeries& series : QueryRange(promql, start, end, step)) {
    for (const auto& [time, value] : series.points) {
      if (std::isnan(value)) continue;
      if (!peak || value > *peak) peak = value;
    }
  }
  return peak;
}

std::vector<AlertState> PrometheusClient::Alerts() const {
  return ParseAlertsResponse(Get("/api/v1/alerts", "alerts"));
}

}  // namespace aftershock::alerting
