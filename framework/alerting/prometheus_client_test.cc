#include "framework/alerting/prometheus_client.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "framework/alerting/internal/loopback_http_server.h"
#include "framework/alerting/post_run_summary.h"

namespace aftershock::alerting {
namespace {

TEST(ParseInstantQueryResponse, VectorAndScalar) {
  const auto vector = ParseInstantQueryResponse(R"({"status":"success","data":{"resultType":"vector",
    "result":[{"metric":{"code":"500","job":"work"},"value":[1714644903.5,"12.25"]},
              {"metric":{"code":"200","job":"work"},"value":[1714644903.5,"NaN"]}]}})");
  ASSERT_EQ(vector.size(), 2u);
  EXPECT_EQ(vector[0].labels.at("code"), "500");
  EXPECT_EQ(vector[0].value, 12.25);
  EXPECT_TRUE(std::isnan(vector[1].value));

  const auto scalar = ParseInstantQueryResponse(
      R"({"status":"success","data":{"resultType":"scalar","result":[1714644903.5,"0.5"]}})");
  ASSERT_EQ(scalar.size(), 1u);
  EXPECT_TRUE(scalar[0].labels.empty());
  EXPECT_EQ(scalar[0].value, 0.5);
}

TEST(ParseInstantQueryResponse, ErrorStatusCarriesPrometheusMessage) {
  try {
    ParseInstantQueryResponse(
        R"({"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected"})");
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad_data: 1:5: parse error: unexpected"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ParseInstantQueryResponse("<html>"), std::runtime_error);
}

TEST(ParseRangeQueryResponse, MatrixPoints) {
  const auto series = ParseRangeQueryResponse(R"({"status":"success","data":{"resultType":"matrix",
    "result":[{"metric":{"alertname":"A"},"values":[[1714644900,"1"],[1714644901.5,"2.5"]]}]}})");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].labels.at("alertname"), "A");
  ASSERT_EQ(series[0].points.size(), 2u);
  EXPECT_DOUBLE_EQ(ToUnixSeconds(series[0].points[1].first), 1714644901.5);
  EXPECT_EQ(series[0].points[1].second, 2.5);
}

TEST(ParseAlertsResponse, NamesStatesAndLabels) {
  const auto alerts = ParseAlertsResponse(R"({"status":"success","data":{"alerts":[
    {"labels":{"alertname":"AvailabilityErrorBudgetBurnFast","severity":"page","source":"load-test"},
     "annotations":{},"state":"firing","activeAt":"2024-05-02T10:15:03.123Z","value":"2e-01"},
    {"labels":{"alertname":"LatencySLOViolation"},"annotations":{},"state":"pending",
     "activeAt":"2024-05-02T10:16:00Z","value":"4e-01"}]}})");
  ASSERT_EQ(alerts.size(), 2u);
  EXPECT_EQ(alerts[0].name, "AvailabilityErrorBudgetBurnFast");
  EXPECT_EQ(alerts[0].state, "firing");
  EXPECT_EQ(alerts[0].labels.at("source"), "load-test");
  EXPECT_EQ(alerts[0].active_at, "2024-05-02T10:15:03.123Z");
  EXPECT_EQ(alerts[1].state, "pending");
}

// The client against a fake Prometheus: checks the request it sends and how it reads answers.
TEST(PrometheusClient, SendsEncodedQueriesAndReadsAnswers) {
  std::vector<std::string> targets;
  internal::LoopbackHttpServer fake([&targets](const internal::ServerRequest& request) {
    targets.push_back(request.target);
    if (request.target.rfind("/api/v1/query_range?", 0) == 0) {
      return internal::ServerResponse{200, "application/json",
          R"({"status":"success","data":{"resultType":"matrix","result":[
             {"metric":{},"values":[[1,"0.5"],[2,"NaN"],[3,"0.25"]]},
             {"metric":{"a":"b"},"values":[[1,"0.75"]]}]}})"};
    }
    if (request.target.find("two") != std::string::npos) {
      return internal::ServerResponse{200, "application/json",
          R"({"status":"success","data":{"resultType":"vector","result":[
             {"metric":{"a":"1"},"value":[1,"1"]},{"metric":{"a":"2"},"value":[1,"2"]}]}})"};
    }
    if (request.target.find("bad") != std::string::npos) {
      return internal::ServerResponse{400, "application/json",
          R"({"status":"error","errorType":"bad_data","error":"parse error"})"};
    }
    return internal::ServerResponse{200, "application/json",
        R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"7"]}]}})"};
  });
  const PrometheusClient client("127.0.0.1", fake.port());

  EXPECT_EQ(client.QueryScalar("sum(rate(x{code=~\"5..\"}[1m]))", FromUnixSeconds(1700000000.25)),
            7.0);
  EXPECT_EQ(client.QueryRangeMax("up", FromUnixSeconds(1), FromUnixSeconds(3),
                                 std::chrono::milliseconds(1500)),
            0.75);
  EXPECT_THROW(client.QueryScalar("two"), std::runtime_error);
  try {
    client.QueryScalar("bad(");
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("HTTP 400"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("parse error"), std::string::npos) << e.what();
  }
  fake.Stop();
  ASSERT_GE(targets.size(), 2u);
  EXPECT_EQ(targets[0],
            "/api/v1/query?query=sum%28rate%28x%7Bcode%3D~%225..%22%7D%5B1m%5D%29%29"
            "&time=1700000000.250");
  EXPECT_EQ(targets[1], "/api/v1/query_range?query=up&start=1.000&end=3.000&step=1.500");
  EXPECT_THROW(client.Alerts(), std::runtime_error);  // nothing listens any more
}

TEST(FormatSummary, ShowsFiguresAndMissingOnes) {
  PostRunSummary summary;
  summary.start = FromUnixSeconds(1000);
  summary.end = FromUnixSeconds(1060);
  summary.total_requests = 12000;
  summary.peak_error_ratio = 0.2;
  summary.peak_p95_seconds = 0.0925;
  summary.restarts = 1;
  summary.alerts_fired = {"AvailabilityErrorBudgetBurnFast"};
  const std::string text = FormatSummary(summary);
  EXPECT_NE(text.find("total requests       12000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("peak rate            n/a\n"), std::string::npos) << text;
  EXPECT_NE(text.find("peak error ratio     20.00 %\n"), std::string::npos) << text;
  EXPECT_NE(text.find("peak p95             92.5 ms\n"), std::string::npos) << text;
  EXPECT_NE(text.find("restarts             1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("alerts fired         AvailabilityErrorBudgetBurnFast\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("alerts now           none\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace aftershock::alerting
