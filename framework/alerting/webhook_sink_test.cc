#include "framework/alerting/webhook_sink.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "framework/alerting/incident_book.h"
#include "framework/net/http_exchange.h"
#include "framework/alerting/webhook_payload.h"

namespace aftershock::alerting {
namespace {

// Written by hand after Alertmanager's webhook format, version 4 (notify/webhook in 0.25).
std::string Payload(const std::string& status, const std::string& receiver,
                    const std::string& ends_at = "0001-01-01T00:00:00Z") {
  return R"({
  "receiver": ")" + receiver + R"(",
  "status": ")" + status + R"(",
  "alerts": [
    {
      "status": ")" + status + R"(",
      "labels": {
        "alertname": "AvailabilityErrorBudgetBurnFast",
        "severity": "page",
        "source": "load-test"
      },
      "annotations": {
        "summary": "[LOAD-TEST] work: 5xx ratio over 5m above 10x the error budget"
      },
      "startsAt": "2024-05-02T10:15:03.123Z",
      "endsAt": ")" + ends_at + R"(",
      "generatorURL": "http://127.0.0.1:9090/graph?g0.expr=...",
      "fingerprint": "c6b4e5f1d0a2b3c4"
    }
  ],
  "groupLabels": {"alertname": "AvailabilityErrorBudgetBurnFast"},
  "commonLabels": {
    "alertname": "AvailabilityErrorBudgetBurnFast",
    "severity": "page",
    "source": "load-test"
  },
  "commonAnnotations": {
    "summary": "[LOAD-TEST] work: 5xx ratio over 5m above 10x the error budget"
  },
  "externalURL": "http://127.0.0.1:9093",
  "version": "4",
  "groupKey": "{}/{source=\"load-test\"}:{alertname=\"AvailabilityErrorBudgetBurnFast\"}",
  "truncatedAlerts": 0
})";
}

TEST(ParseWebhookPayload, ReadsEveryFieldOfAVersion4Notification) {
  const WebhookPayload p = ParseWebhookPayload(Payload("firing", "test"));
  EXPECT_EQ(p.version, "4");
  EXPECT_EQ(p.receiver, "test");
  EXPECT_EQ(p.status, "firing");
  EXPECT_EQ(p.group_key,
            "{}/{source=\"load-test\"}:{alertname=\"AvailabilityErrorBudgetBurnFast\"}");
  EXPECT_EQ(p.truncated_alerts, 0);
  EXPECT_EQ(p.external_url, "http://127.0.0.1:9093");
  EXPECT_EQ(p.group_labels.at("alertname"), "AvailabilityErrorBudgetBurnFast");
  EXPECT_EQ(p.common_labels.at("source"), "load-test");
  ASSERT_EQ(p.alerts.size(), 1u);
  const WebhookAlert& a = p.alerts[0];
  EXPECT_EQ(a.status, "firing");
  EXPECT_EQ(a.alertname(), "AvailabilityErrorBudgetBurnFast");
  EXPECT_EQ(a.labels.at("severity"), "page");
  EXPECT_EQ(a.labels.size(), 3u);
  EXPECT_EQ(a.starts_at, "2024-05-02T10:15:03.123Z");
  EXPECT_EQ(a.ends_at, "0001-01-01T00:00:00Z");
  EXPECT_EQ(a.fingerprint, "c6b4e5f1d0a2b3c4");
  EXPECT_EQ(a.annotations.at("summary"),
            "[LOAD-TEST] work: 5xx ratio over 5m above 10x the error budget");
}

TEST(ParseWebhookPayload, RejectsWhatIsNotANotification) {
  EXPECT_THROW(ParseWebhookPayload("not json"), std::invalid_argument);
  EXPECT_THROW(ParseWebhookPayload("[]"), std::invalid_argument);
  std::string v3 = Payload("firing", "test");
  v3.replace(v3.find("\"version\": \"4\""), 14, "\"version\": \"3\"");
  EXPECT_THROW(ParseWebhookPayload(v3), std::invalid_argument);
  std::string no_fingerprint = Payload("firing", "test");
  no_fingerprint.replace(no_fingerprint.find("\"fingerprint\""), 13, "\"fingerprynt\"");
  EXPECT_THROW(ParseWebhookPayload(no_fingerprint), std::invalid_argument);
  std::string odd_status = Payload("firing", "test");
  odd_status.replace(odd_status.find("\"status\": \"firing\",\n      \"labels\""), 18,
                     "\"status\": \"sleepy\"");
  EXPECT_THROW(ParseWebhookPayload(odd_status), std::invalid_argument);
}

TEST(IncidentBook, OneIncidentPerFingerprintCreatedThenResolved) {
  IncidentBook book("[LOAD-TEST] ");
  const WallTime t0 = FromUnixSeconds(1'700'000'000.0);
  book.Apply(ParseWebhookPayload(Payload("firing", "test")), t0);
  book.Apply(ParseWebhookPayload(Payload("firing", "test")), t0 + std::chrono::seconds(1));
  ASSERT_EQ(book.incidents().size(), 1u);
  EXPECT_EQ(book.incidents()[0].title, "[LOAD-TEST] AvailabilityErrorBudgetBurnFast");
  EXPECT_EQ(book.incidents()[0].dedup_key, "c6b4e5f1d0a2b3c4");
  EXPECT_EQ(book.incidents()[0].receiver, "test");
  EXPECT_EQ(book.incidents()[0].created_at, t0);
  EXPECT_FALSE(book.incidents()[0].resolved());
  EXPECT_EQ(book.incidents()[0].notifications, 2);

  const WallTime t1 = t0 + std::chrono::seconds(30);
  book.Apply(ParseWebhookPayload(Payload("resolved", "test", "2024-05-02T10:20:00Z")), t1);
  ASSERT_EQ(book.incidents().size(), 1u);
  ASSERT_TRUE(book.incidents()[0].resolved());
  EXPECT_EQ(*book.incidents()[0].resolved_at, t1);

  // Firing again after the resolve opens a second incident.
  book.Apply(ParseWebhookPayload(Payload("firing", "test")), t1 + std::chrono::seconds(5));
  ASSERT_EQ(book.incidents().size(), 2u);
  EXPECT_FALSE(book.incidents()[1].resolved());
}

TEST(IncidentBook, ProductionTitlesHaveNoPrefixAndLoneResolvesAreIgnored) {
  IncidentBook book("");
  book.Apply(ParseWebhookPayload(Payload("resolved", "production")), WallClock::now());
  EXPECT_TRUE(book.incidents().empty());
  book.Apply(ParseWebhookPayload(Payload("firing", "production")), WallClock::now());
  ASSERT_EQ(book.incidents().size(), 1u);
  EXPECT_EQ(book.incidents()[0].title, "AvailabilityErrorBudgetBurnFast");
}

TEST(WebhookSink, RecordsPostedNotificationsAsIncidents) {
  WebhookSink sink({.name = "test", .title_prefix = "[LOAD-TEST] "});
  ASSERT_GT(sink.port(), 0);
  EXPECT_EQ(sink.url(), "http://127.0.0.1:" + std::to_string(sink.port()) + "/webhook");
  const auto post = [&sink](const std::string& body) {
    return net::HttpExchange({.method = "POST", .port = sink.port(), .target = "/webhook",
                                   .body = body},
                                  std::chrono::seconds(5));
  };
  const net::HttpResult firing = post(Payload("firing", "test"));
  ASSERT_TRUE(firing.answered()) << firing.error;
  EXPECT_EQ(firing.status, 200);
  const net::HttpResult garbage = post("{oops");
  ASSERT_TRUE(garbage.answered()) << garbage.error;
  EXPECT_EQ(garbage.status, 400);
  const net::HttpResult resolved = post(Payload("resolved", "test"));
  ASSERT_TRUE(resolved.answered()) << resolved.error;
  EXPECT_EQ(resolved.status, 200);

  const std::vector<std::string> raw = sink.RawEvents();
  ASSERT_EQ(raw.size(), 3u);
  EXPECT_EQ(raw[1], "{oops");
  EXPECT_FALSE(sink.Events()[1].payload.has_value());
  EXPECT_FALSE(sink.Events()[1].parse_error.empty());
  const std::vector<Incident> incidents = sink.Incidents();
  ASSERT_EQ(incidents.size(), 1u);
  EXPECT_EQ(incidents[0].title, "[LOAD-TEST] AvailabilityErrorBudgetBurnFast");
  EXPECT_TRUE(incidents[0].resolved());
  EXPECT_LE(incidents[0].created_at, *incidents[0].resolved_at);

  sink.Stop();
  const net::HttpResult after = post(Payload("firing", "test"));
  EXPECT_FALSE(after.answered());
  EXPECT_EQ(sink.RawEvents().size(), 3u);
}

TEST(WebhookSink, RefusesGet) {
  WebhookSink sink({.name = "production", .title_prefix = ""});
  const net::HttpResult r = net::HttpExchange(
      {.method = "GET", .port = sink.port(), .target = "/webhook"}, std::chrono::seconds(5));
  ASSERT_TRUE(r.answered()) << r.error;
  EXPECT_EQ(r.status, 405);
  EXPECT_TRUE(sink.RawEvents().empty());
}

}  // namespace
}  // namespace aftershock::alerting
