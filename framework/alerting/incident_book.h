// The incidents an on-call tool (PagerDuty in seed 001) would open from Alertmanager webhooks.
//
// One incident per alert fingerprint: a firing alert opens it (or adds to the open one), a
// resolved alert resolves it; a later firing of the same alert opens a new incident, as a paging
// tool does. The title is the receiver's prefix plus the alert name, e.g.
// "[LOAD-TEST] AvailabilityErrorBudgetBurnFast" on the test receiver.
//
//   IncidentBook book("[LOAD-TEST] ");
//   book.Apply(ParseWebhookPayload(body), WallClock::now());
//   for (const Incident& i : book.incidents()) ... i.resolved_at ...
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_INCIDENT_BOOK_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_INCIDENT_BOOK_H_

#include <optional>
#include <string>
#include <vector>

#include "framework/alerting/wall_time.h"
#include "framework/alerting/webhook_payload.h"

namespace aftershock::alerting {

struct Incident {
  std::string dedup_key;   // the alert's fingerprint
  std::string group_key;   // Alertmanager's group key of the first notification
  std::string receiver;    // as named in the payload
  std::string alertname;
  std::string title;       // prefix + alertname
  LabelSet labels;
  std::string starts_at;   // the alert's startsAt, as sent
  WallTime created_at{};   // when the firing notification arrived
  std::optional<WallTime> resolved_at;  // when the resolved notification arrived
  int notifications = 0;   // firing + resolved notifications that touched it

  bool resolved() const { return resolved_at.has_value(); }
};

class IncidentBook {
 public:
  explicit IncidentBook(std::string title_prefix) : title_prefix_(std::move(title_prefix)) {}

  void Apply(const WebhookPayload& payload, WallTime received_at);
  const std::vector<Incident>& incidents() const { return incidents_; }

 private:
  // The open (unresolved) incident for `dedup_key`, or nullptr.
  Incident* OpenIncident(const std::string& dedup_key);

  std::string title_prefix_;
  std::vector<Incident> incidents_;  // in creation order
};

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_INCIDENT_BOOK_H_
