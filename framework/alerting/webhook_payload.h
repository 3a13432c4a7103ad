// Alertmanager's webhook notification (format version "4") as a value type.
//
// Alertmanager POSTs one of these per notification of an alert group to each webhook receiver:
//
//   WebhookPayload p = ParseWebhookPayload(request_body);  // throws std::invalid_argument
//   p.receiver;                 // "test"
//   p.alerts[0].fingerprint;    // stable id of one alert (its label set)
//   p.alerts[0].status;         // "firing" | "resolved"
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_WEBHOOK_PAYLOAD_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_WEBHOOK_PAYLOAD_H_

#include <map>
#include <string>
#include <vector>

namespace aftershock::alerting {

using LabelSet = std::map<std::string, std::string>;

struct WebhookAlert {
  std::string status;  // "firing" | "resolved"
  LabelSet labels;
  LabelSet annotations;
  std::string starts_at;  // RFC 3339, as sent
  std::string ends_at;    // RFC 3339; "0001-01-01T00:00:00Z" while firing
  std::string generator_url;
  std::string fingerprint;

  std::string alertname() const;  // labels["alertname"], "" when absent
};

struct WebhookPayload {
  std::string version;   // "4"
  std::string group_key;
  int truncated_alerts = 0;
  std::string status;    // "firing" when any alert fires, else "resolved"
  std::string receiver;
  LabelSet group_labels;
  LabelSet common_labels;
  LabelSet common_annotations;
  std::string external_url;
  std::vector<WebhookAlert> alerts;
};

// Parses and checks one notification body: valid JSON, version "4", a receiver, each alert with a
// status of firing|resolved and a fingerprint. Throws std::invalid_argument saying what is wrong.
WebhookPayload ParseWebhookPayload(const std::string& body);

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_WEBHOOK_PAYLOAD_H_
