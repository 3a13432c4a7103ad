// The alert chain verdict (seed 001, "Alert-Validierung") as data a suite can gate on:
//
//   | check                          | evidence                                         |
//   | alert reached firing           | Prometheus ALERTS series (alertstate="firing")   |
//   | routed to the test receiver    | a firing notification at the "test" webhook      |
//   | incident created               | an incident titled "[LOAD-TEST] <alertname>"     |
//   | incident resolved by itself    | the resolved notification closed that incident   |
//   | no effect on production        | the production webhook saw no event at all       |
//
//   std::optional<WallTime> fired = WaitForAlertState(prometheus, "AvailabilityErrorBudgetBurnFast",
//                                                     "firing", std::chrono::seconds(90));
//   ChainReport report = CheckChain(stack, run_start, WallClock::now());
//   EXPECT_TRUE(report.Passed()) << report.Describe();
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_ALERT_CHAIN_VERDICT_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_ALERT_CHAIN_VERDICT_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "framework/alerting/alerting_stack.h"
#include "framework/alerting/prometheus_client.h"
#include "framework/alerting/wall_time.h"

namespace aftershock::alerting {

inline constexpr const char* kFastBurnAlert = "AvailabilityErrorBudgetBurnFast";

// Polls /api/v1/alerts until `alertname` is in `state` ("pending", "firing", or "inactive" =
// absent), at most `timeout`; returns when it was first seen so, nullopt on timeout. Query errors
// while polling count as "not yet" (Prometheus may still be starting).
std::optional<WallTime> WaitForAlertState(const PrometheusClient& client,
                                          const std::string& alertname, const std::string& state,
                                          std::chrono::milliseconds timeout,
                                          std::chrono::milliseconds poll = std::chrono::milliseconds(250));

struct ProductionEvent {
  WallTime received_at{};
  std::string receiver;                 // as named in the payload
  std::string status;                   // firing | resolved
  std::vector<std::string> alertnames;
};

struct ChainReport {
  std::string alertname;
  bool fired = false;                      // ALERTS{alertstate="firing"} seen in the window
  std::optional<WallTime> fired_at;        // first firing sample
  bool routed_to_test_receiver = false;    // firing notification with receiver "test"
  std::optional<WallTime> routed_at;
  bool incident_created = false;           // "[LOAD-TEST] <alertname>" at the test sink
  std::optional<WallTime> incident_created_at;
  // Every incident opened in the window resolved in it: a flapping alert whose re-fire opened a
  // second incident that stays open is not resolved, whatever happened to the first.
  bool incident_resolved = false;
  std::optional<WallTime> incident_resolved_at;  // the last resolution in the window
  int incidents_opened = 0;                      // with that title, in the window
  std::vector<WallTime> unresolved_incidents{};  // when each one still open (or resolved too late) was opened
  std::vector<ProductionEvent> production_events;  // must be empty
  std::vector<std::string> problems;               // one line per failed check

  bool production_clean() const { return production_events.empty(); }
  bool Passed() const { return problems.empty(); }
  std::string Describe() const;
};

// Judges the chain for `alertname` over [since, until] from the stack's Prometheus and sinks.
// `expect_resolved` = false skips the resolution check (for a run that ends while still firing).
ChainReport CheckChain(const AlertingStack& stack, WallTime since, WallTime until,
                       const std::string& alertname = kFastBurnAlert, bool expect_resolved = true);

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_ALERT_CHAIN_VERDICT_H_
