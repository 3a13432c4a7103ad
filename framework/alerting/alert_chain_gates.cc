#include "framework/alerting/alert_chain_gates.h"

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

namespace aftershock::alerting {
namespace {

using gates::GateResult;

// Seconds from the run start, -1 for never (the figure).
double SecondsFrom(const std::optional<WallTime>& time, WallTime run_start) {
  if (!time) return -1;
  return std::chrono::duration<double>(*time - run_start).count();
}

std::string Seconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f s", seconds);
  return buffer;
}

GateResult Step(std::string_view name, bool ok, const std::optional<WallTime>& at, WallTime run_start,
                const std::string& figure, std::string ok_message, std::string fail_message) {
  GateResult r;
  r.name = std::string(name);
  r.passed = ok;
  const double seconds = SecondsFrom(at, run_start);
  r.figures = {{figure, seconds}};
  // When a step of the chain happened (-1: never): its gate judges it, no direction.
  r.Declare(gates::FigureDirection::kNeither, {figure});
  r.message = ok ? ok_message + " " + Seconds(seconds) + " after the run started" : std::move(fail_message);
  return r;
}

}  // namespace

std::vector<GateResult> AlertChainGates(const ChainReport& report, WallTime run_start, bool expect_resolved) {
  const std::string& alert = report.alertname;
  const std::string title = "[LOAD-TEST] " + alert;
  std::vector<GateResult> out;

  std::string not_fired = alert + " never reached firing in Prometheus";
  for (const std::string& problem : report.problems) {
    if (problem.rfind("cannot read ALERTS", 0) == 0) not_fired += " (" + problem + ")";
  }
  out.push_back(Step(kAlertFired, report.fired, report.fired_at, run_start, "alert_fired_seconds",
                     alert + " reached firing", not_fired));
  out.push_back(Step(kAlertRouted, report.routed_to_test_receiver, report.routed_at, run_start,
                     "alert_routed_seconds", alert + " reached the test receiver",
                     alert + " never reached the test receiver" +
                         std::string(report.fired ? " although it fired" : " (it never fired)")));
  out.push_back(Step(kIncidentOpened, report.incident_created, report.incident_created_at, run_start,
                     "incident_opened_seconds", "incident '" + title + "' opened",
                     "no incident titled '" + title + "' was opened"));

  if (!expect_resolved) {
    out.push_back(gates::NotApplicable(std::string(kIncidentResolved),
                                       "resolution is not expected (the run ends while the alert fires)"));
  } else {
    std::string open;
    for (std::size_t i = 0; i < report.unresolved_incidents.size(); ++i) {
      open += (i == 0 ? "" : ", ") + Seconds(SecondsFrom(report.unresolved_incidents[i], run_start));
    }
    std::string not_resolved = "no incident was opened, so none resolved";
    if (report.incident_created) {
      not_resolved = report.incidents_opened > 1
                         ? std::to_string(report.unresolved_incidents.size()) + " of " +
                               std::to_string(report.incidents_opened) + " incidents '" + title +
                               "' did not resolve (the one(s) opened " + open + " after the run started)"
                         : "incident '" + title + "' did not resolve";
    }
    GateResult resolved = Step(kIncidentResolved, report.incident_resolved, report.incident_resolved_at, run_start,
                               "incident_resolved_seconds",
                               report.incidents_opened > 1
                                   ? "all " + std::to_string(report.incidents_opened) + " incidents '" + title +
                                         "' resolved, the last"
                                   : "incident '" + title + "' resolved",
                               not_resolved);
    resolved.figures.emplace_back("incidents_opened", static_cast<double>(report.incidents_opened));
    resolved.figures.emplace_back("incidents_unresolved", static_cast<double>(report.unresolved_incidents.size()));
    resolved.Declare(gates::FigureDirection::kLowerIsBetter, {"incidents_unresolved", "incident_open_seconds"})
        .Declare(gates::FigureDirection::kNeither, {"incidents_opened"});
    if (report.incident_resolved && report.incident_created_at && report.incident_resolved_at) {
      const double open = std::chrono::duration<double>(*report.incident_resolved_at - *report.incident_created_at).count();
      resolved.figures.emplace_back("incident_open_seconds", open);
      resolved.message += ", open for " + Seconds(open);
    }
    out.push_back(std::move(resolved));
  }

  GateResult production;
  production.name = std::string(kProductionUntouched);
  production.passed = report.production_clean();
  production.figures = {{"production_events", static_cast<double>(report.production_events.size())}};
  production.Declare(gates::FigureDirection::kLowerIsBetter, {"production_events"});
  if (production.passed) {
    production.message = "the production receiver saw no event";
  } else {
    production.message = std::to_string(report.production_events.size()) + " events reached production:";
    bool first = true;
    for (const ProductionEvent& event : report.production_events) {
      std::string names;
      for (const std::string& name : event.alertnames) names += (names.empty() ? "" : ", ") + name;
      production.message += std::string(first ? " " : "; ") + "receiver '" + event.receiver + "' got a " +
                            event.status + " notification for [" + names + "] " +
                            Seconds(SecondsFrom(event.received_at, run_start)) + " after the run started";
      first = false;
    }
  }
  out.push_back(std::move(production));
  return out;
}

}  // namespace aftershock::alerting
