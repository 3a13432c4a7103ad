#include "framework/alerting/alert_chain_verdict.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace aftershock::alerting {
namespace {

std::string Stamp(const std::optional<WallTime>& time) {
  if (!time) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f", ToUnixSeconds(*time));
  return buffer;
}

bool InWindow(WallTime time, WallTime since, WallTime until) { return time >= since && time <= until; }

}  // namespace

std::optional<WallTime> WaitForAlertState(const PrometheusClient& client,
                                          const std::string& alertname, const std::string& state,
                                          std::chrono::milliseconds timeout,
                                          std::chrono::milliseconds poll) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    try {
      std::string current = "inactive";
      for (const AlertState& alert : client.Alerts()) {
        if (alert.name != alertname) continue;
        // Several series of one alert: firing wins over pending.
        if (alert.state == "firing" || current == "inactive") current = alert.state;
      }
      if (current == state) return WallClock::now();
    } catch (const std::runtime_error&) {
      // Not reachable yet: keep polling until the deadline.
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(poll);
  }
}

ChainReport CheckChain(const AlertingStack& stack, WallTime since, WallTime until,
                       const std::string& alertname, bool expect_resolved) {
  ChainReport report;
  report.alertname = alertname;

  // 1. Prometheus: the rule reached firing.
  const PrometheusClient client = stack.client();
  const std::chrono::milliseconds step = std::max<std::chrono::milliseconds>(
      stack.intervals().evaluation, std::chrono::milliseconds(1000));
  try {
    const auto series = client.QueryRange(
        "ALERTS{alertname=\"" + alertname + "\", alertstate=\"firing\"}", since, until, step);
    for (const RangeSeries& one : series) {
      for (const auto& [time, value] : one.points) {
        if (value != 1) continue;
        if (!report.fired_at || time < *report.fired_at) report.fired_at = time;
      }
    }
  } catch (const std::runtime_error& e) {
    report.problems.push_back(std::string("cannot read ALERTS from Prometheus: ") + e.what());
  }
  report.fired = report.fired_at.has_value();

  // 2. Alertmanager routed it to the test receiver.
  for (const WebhookEvent& event : stack.test_sink().Events()) {
    if (!event.payload || !InWindow(event.received_at, since, until)) continue;
    if (event.payload->receiver != "test") continue;
    for (const WebhookAlert& alert : event.payload->alerts) {
      if (alert.alertname() == alertname && alert.status == "firing" && !report.routed_at) {
        report.routed_at = event.received_at;
      }
    }
  }
  report.routed_to_test_receiver = report.routed_at.has_value();

  // 3./4. The incident was created with the test prefix and resolved itself.
  const std::string title = "[LOAD-TEST] " + alertname;
  // Every re-fire after a resolve opens a new incident: each one must resolve, not only the first.
  for (const Incident& incident : stack.test_sink().Incidents()) {
    if (incident.title != title || !InWindow(incident.created_at, since, until)) continue;
    ++report.incidents_opened;
    if (!report.incident_created_at) report.incident_created_at = incident.created_at;
    if (incident.resolved_at && InWindow(*incident.resolved_at, since, until)) {
      if (!report.incident_resolved_at || *report.incident_resolved_at < *incident.resolved_at) {
        report.incident_resolved_at = incident.resolved_at;
      }
    } else {
      report.unresolved_incidents.push_back(incident.created_at);
    }
  }
  report.incident_created = report.incident_created_at.has_value();
  report.incident_resolved = report.incident_created && report.unresolved_incidents.empty();

  // 5. Nothing reached production (any event, any alert, counts).
  for (const WebhookEvent& event : stack.production_sink().Events()) {
    if (!InWindow(event.received_at, since, until)) continue;
    ProductionEvent seen;
    seen.received_at = event.received_at;
    if (event.payload) {
      seen.receiver = event.payload->receiver;
      seen.status = event.payload->status;
      for (const WebhookAlert& alert : event.payload->alerts) seen.alertnames.push_back(alert.alertname());
    } else {
      seen.receiver = "(unparsed: " + event.parse_error + ")";
    }
    report.production_events.push_back(std::move(seen));
  }

  if (!report.fired) report.problems.push_back(alertname + " never reached firing in Prometheus");
  if (!report.routed_to_test_receiver) {
    report.problems.push_back(alertname + " never reached the test receiver");
  }
  if (!report.incident_created) report.problems.push_back("no incident titled '" + title + "'");
  if (expect_resolved && !report.incident_resolved) {
    report.problems.push_back(report.incidents_opened > 1
                                  ? std::to_string(report.unresolved_incidents.size()) + " of " +
                                        std::to_string(report.incidents_opened) + " incidents '" + title +
                                        "' did not resolve"
                                  : "incident '" + title + "' did not resolve");
  }
  for (const ProductionEvent& event : report.production_events) {
    std::string names;
    for (const std::string& name : event.alertnames) names += (names.empty() ? "" : ", ") + name;
    report.problems.push_back("production receiver '" + event.receiver + "' got a " + event.status +
                              " notification for [" + names + "] at " + Stamp(event.received_at));
  }
  return report;
}

std::string ChainReport::Describe() const {
  std::string out = "alert chain for " + alertname + ":\n";
  const auto line = [&out](const char* check, bool ok, const std::optional<WallTime>& when) {
    out += std::string("  ") + (ok ? "[ok]   " : "[FAIL] ") + check + " (at " + Stamp(when) + ")\n";
  };
  line("reached firing", fired, fired_at);
  line("routed to test receiver", routed_to_test_receiver, routed_at);
  line("incident created", incident_created, incident_created_at);
  line("incident resolved", incident_resolved, incident_resolved_at);
  out += std::string("  ") + (production_clean() ? "[ok]   " : "[FAIL] ") +
         "production receiver untouched (" + std::to_string(production_events.size()) +
         " events)\n";
  for (const std::string& problem : problems) out += "  problem: " + problem + "\n";
  return out;
}

}  // namespace aftershock::alerting
