#include "framework/alerting/incident_book.h"

namespace aftershock::alerting {

Incident* IncidentBook::OpenIncident(const std::string& dedup_key) {
  for (Incident& incident : incidents_) {
    if (incident.dedup_key == dedup_key && !incident.resolved()) return &incident;
  }
  return nullptr;
}

void IncidentBook::Apply(const WebhookPayload& payload, WallTime received_at) {
  for (const WebhookAlert& alert : payload.alerts) {
    Incident* open = OpenIncident(alert.fingerprint);
    if (alert.status == "firing") {
      if (open == nullptr) {
        Incident incident;
        incident.dedup_key = alert.fingerprint;
        incident.group_key = payload.group_key;
        incident.receiver = payload.receiver;
        incident.alertname = alert.alertname();
        incident.title = title_prefix_ + incident.alertname;
        incident.labels = alert.labels;
        incident.starts_at = alert.starts_at;
        incident.created_at = received_at;
        incidents_.push_back(std::move(incident));
        open = &incidents_.back();
      }
      ++open->notifications;
    } else if (open != nullptr) {  // resolved; a resolve without an open incident is a no-op
      open->resolved_at = received_at;
      ++open->notifications;
    }
  }
}

}  // namespace aftershock::alerting
