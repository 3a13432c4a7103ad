#include "framework/alerting/webhook_payload.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace aftershock::alerting {
namespace {

using nlohmann::json;

std::string StringField(const json& object, const char* key, bool required) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (required) throw std::invalid_argument(std::string("webhook payload: missing \"") + key + "\"");
    return "";
  }
  if (!it->is_string()) {
    throw std::invalid_argument(std::string("webhook payload: \"") + key + "\" is not a string");
  }
  return it->get<std::string>();
}

LabelSet LabelField(const json& object, const char* key) {
  LabelSet labels;
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return labels;
  if (!it->is_object()) {
    throw std::invalid_argument(std::string("webhook payload: \"") + key + "\" is not an object");
  }
  for (const auto& [name, value] : it->items()) {
    if (!value.is_string()) {
      throw std::invalid_argument(std::string("webhook payload: ") + key + "." + name +
                                  " is not a string");
    }
    labels[name] = value.get<std::string>();
  }
  return labels;
}

}  // namespace

std::string WebhookAlert::alertname() const {
  const auto it = labels.find("alertname");
  return it == labels.end() ? "" : it->second;
}

WebhookPayload ParseWebhookPayload(const std::string& body) {
  json root;
  try {
    root = json::parse(body);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(std::string("webhook payload is not JSON: ") + e.what());
  }
  if (!root.is_object()) throw std::invalid_argument("webhook payload is not a JSON object");

  WebhookPayload payload;
  payload.version = StringField(root, "version", true);
  if (payload.version != "4") {
    throw std::invalid_argument("webhook payload: version \"" + payload.version +
                                "\", expected \"4\"");
  }
  payload.group_key = StringField(root, "groupKey", true);
  if (const auto it = root.find("truncatedAlerts"); it != root.end() && it->is_number_integer()) {
    payload.truncated_alerts = it->get<int>();
  }
  payload.status = StringField(root, "status", true);
  payload.receiver = StringField(root, "receiver", true);
  if (payload.receiver.empty()) throw std::invalid_argument("webhook payload: empty receiver");
  payload.group_labels = LabelField(root, "groupLabels");
  payload.common_labels = LabelField(root, "commonLabels");
  payload.common_annotations = LabelField(root, "commonAnnotations");
  payload.external_url = StringField(root, "externalURL", false);

  const auto alerts = root.find("alerts");
  if (alerts == root.end() || !alerts->is_array()) {
    throw std::invalid_argument("webhook payload: \"alerts\" is missing or not an array");
  }
  for (const json& item : *alerts) {
    if (!item.is_object()) throw std::invalid_argument("webhook payload: an alert is not an object");
    WebhookAlert alert;
    alert.status = StringField(item, "status", true);
    if (alert.status != "firing" && alert.status != "resolved") {
      throw std::invalid_argument("webhook payload: alert status \"" + alert.status + "\"");
    }
    alert.labels = LabelField(item, "labels");
    alert.annotations = LabelField(item, "annotations");
    alert.starts_at = StringField(item, "startsAt", false);
    alert.ends_at = StringField(item, "endsAt", false);
    alert.generator_url = StringField(item, "generatorURL", false);
    alert.fingerprint = StringField(item, "fingerprint", true);
    if (alert.fingerprint.empty()) throw std::invalid_argument("webhook payload: empty fingerprint");
    payload.alerts.push_back(std::move(alert));
  }
  return payload;
}

}  // namespace aftershock::alerting
