// The alert chain as gates: a ChainReport (alert_chain_verdict.h) turned into five GateResults that
// land in verdict.txt, failures.txt and the JUnit properties like every built-in gate.
//
//   alert-fired           the alert reached firing in Prometheus
//   alert-routed          Alertmanager delivered the firing notification to the test receiver
//   incident-opened       the test sink opened an incident "[LOAD-TEST] <alertname>"
//   incident-resolved     the resolved notification closed that incident (red when none was opened:
//                         the chain did not resolve; "not applicable" only when the caller does not
//                         expect resolution)
//   production-untouched  the production receiver saw no event at all
//
// Each carries its figures: seconds from the run start (-1: never), production_events.
//
//   JudgeOptions options;
//   options.suite_gates = [&](const ScenarioOutcome&) {
//     return alerting::AlertChainGates(alerting::CheckChain(stack, run_start, WallClock::now()), run_start);
//   };
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_ALERT_CHAIN_GATES_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_ALERT_CHAIN_GATES_H_

#include <string_view>
#include <vector>

#include "framework/alerting/alert_chain_verdict.h"
#include "framework/alerting/wall_time.h"
#include "framework/gates/gate_result.h"

namespace aftershock::alerting {

inline constexpr std::string_view kAlertFired = "alert-fired";
inline constexpr std::string_view kAlertRouted = "alert-routed";
inline constexpr std::string_view kIncidentOpened = "incident-opened";
inline constexpr std::string_view kIncidentResolved = "incident-resolved";
inline constexpr std::string_view kProductionUntouched = "production-untouched";

// The five gates above, in that order. `run_start`: the origin of the seconds in messages and
// figures. `expect_resolved` = false: incident-resolved is "not applicable" (a run that ends firing).
std::vector<gates::GateResult> AlertChainGates(const ChainReport& report, WallTime run_start,
                                               bool expect_resolved = true);

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_ALERT_CHAIN_GATES_H_
