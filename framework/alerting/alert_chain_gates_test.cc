#include "framework/alerting/alert_chain_gates.h"

#include <chrono>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace aftershock::alerting {
namespace {

using std::chrono::seconds;

const WallTime kStart = FromUnixSeconds(1'800'000'000);

// What a healthy run leaves: fired at +45 s, routed at +46 s, incident +46 s .. +110 s, nothing in production.
ChainReport HealthyChain() {
  ChainReport r;
  r.alertname = kFastBurnAlert;
  r.fired = true;
  r.fired_at = kStart + seconds(45);
  r.routed_to_test_receiver = true;
  r.routed_at = kStart + seconds(46);
  r.incident_created = true;
  r.incident_created_at = kStart + seconds(46);
  r.incident_resolved = true;
  r.incident_resolved_at = kStart + seconds(110);
  r.incidents_opened = 1;
  return r;
}

double Figure(const gates::GateResult& r, const std::string& name) {
  for (const auto& [key, value] : r.figures) {
    if (key == name) return value;
  }
  ADD_FAILURE() << r.name << " has no figure " << name;
  return -99;
}

std::vector<std::string> Red(const std::vector<gates::GateResult>& results) {
  std::vector<std::string> names;
  for (const auto& r : results) {
    if (!r.passed) names.push_back(r.name);
  }
  return names;
}

// A flapping alert: the re-fire after the first resolve opened a second incident that stays open.
// Judging the first incident only would pass.
TEST(AlertChainGatesTest, ASecondIncidentThatStaysOpenIsRedNamingIt) {
  ChainReport r = HealthyChain();
  r.incidents_opened = 2;
  r.unresolved_incidents = {kStart + seconds(150)};
  r.incident_resolved = false;
  const auto results = AlertChainGates(r, kStart);
  EXPECT_EQ(Red(results), std::vector<std::string>{"incident-resolved"});
  EXPECT_EQ(results[3].message,
            "1 of 2 incidents '[LOAD-TEST] AvailabilityErrorBudgetBurnFast' did not resolve (the one(s) opened "
            "150.0 s after the run started)");
  EXPECT_EQ(Figure(results[3], "incidents_unresolved"), 1);
  // Both resolved: green, saying so.
  r.unresolved_incidents.clear();
  r.incident_resolved = true;
  const auto green = AlertChainGates(r, kStart);
  EXPECT_TRUE(gates::AllPassed(green)) << gates::FormatGateReport(green);
  EXPECT_EQ(green[3].message,
            "all 2 incidents '[LOAD-TEST] AvailabilityErrorBudgetBurnFast' resolved, the last 110.0 s after the run "
            "started, open for 64.0 s");
}

TEST(AlertChainGatesTest, AHealthyChainIsGreenWithItsFigures) {
  const auto results = AlertChainGates(HealthyChain(), kStart);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_TRUE(gates::AllPassed(results)) << gates::FormatGateReport(results);
  EXPECT_EQ(gates::FormatGateReport(results),
            "PASS alert-fired: AvailabilityErrorBudgetBurnFast reached firing 45.0 s after the run started\n"
            "PASS alert-routed: AvailabilityErrorBudgetBurnFast reached the test receiver 46.0 s after the run "
            "started\n"
            "PASS incident-opened: incident '[LOAD-TEST] AvailabilityErrorBudgetBurnFast' opened 46.0 s after the "
            "run started\n"
            "PASS incident-resolved: incident '[LOAD-TEST] AvailabilityErrorBudgetBurnFast' resolved 110.0 s after "
            "the run started, open for 64.0 s\n"
            "PASS production-untouched: the production receiver saw no event\n");
  EXPECT_EQ(Figure(results[0], "alert_fired_seconds"), 45);
  EXPECT_EQ(Figure(results[3], "incident_open_seconds"), 64);
  EXPECT_EQ(Figure(results[4], "production_events"), 0);
}

TEST(AlertChainGatesTest, AChainThatNeverFiredIsRedAtEveryStepButProduction) {
  ChainReport r;
  r.alertname = kFastBurnAlert;
  r.problems = {"AvailabilityErrorBudgetBurnFast never reached firing in Prometheus"};
  const auto results = AlertChainGates(r, kStart);
  EXPECT_EQ(Red(results), (std::vector<std::string>{"alert-fired", "alert-routed", "incident-opened",
                                                      "incident-resolved"}));
  EXPECT_EQ(gates::FailureReasons(results),
            (std::vector<std::string>{
                "alert-fired: AvailabilityErrorBudgetBurnFast never reached firing in Prometheus",
                "alert-routed: AvailabilityErrorBudgetBurnFast never reached the test receiver (it never fired)",
                "incident-opened: no incident titled '[LOAD-TEST] AvailabilityErrorBudgetBurnFast' was opened",
                "incident-resolved: no incident was opened, so none resolved"}));
  EXPECT_EQ(Figure(results[0], "alert_fired_seconds"), -1);
}

TEST(AlertChainGatesTest, AMisrouteIsRedOnProductionNamingTheReceiver) {
  ChainReport r = HealthyChain();
  r.routed_to_test_receiver = false;
  r.routed_at.reset();
  r.incident_created = r.incident_resolved = false;
  r.incident_created_at.reset();
  r.incident_resolved_at.reset();
  r.production_events = {{kStart + seconds(47), "production", "firing", {kFastBurnAlert}},
                         {kStart + seconds(112), "production", "resolved", {kFastBurnAlert}}};
  const auto results = AlertChainGates(r, kStart);
  EXPECT_EQ(Red(results), (std::vector<std::string>{"alert-routed", "incident-opened", "incident-resolved",
                                                      "production-untouched"}));
  EXPECT_EQ(results[4].message,
            "2 events reached production: receiver 'production' got a firing notification for "
            "[AvailabilityErrorBudgetBurnFast] 47.0 s after the run started; receiver 'production' got a resolved "
            "notification for [AvailabilityErrorBudgetBurnFast] 112.0 s after the run started");
  EXPECT_EQ(Figure(results[4], "production_events"), 2);
  EXPECT_EQ(results[1].message, "AvailabilityErrorBudgetBurnFast never reached the test receiver although it fired");
}

TEST(AlertChainGatesTest, AnIncidentThatStaysOpenIsRed) {
  ChainReport r = HealthyChain();
  r.incident_resolved = false;
  r.incident_resolved_at.reset();
  const auto results = AlertChainGates(r, kStart);
  EXPECT_EQ(Red(results), std::vector<std::string>{"incident-resolved"});
  EXPECT_EQ(results[3].message, "incident '[LOAD-TEST] AvailabilityErrorBudgetBurnFast' did not resolve");
}

TEST(AlertChainGatesTest, ResolutionNotExpectedIsNotApplicableNotPass) {
  ChainReport r = HealthyChain();
  r.incident_resolved = false;
  const auto results = AlertChainGates(r, kStart, /*expect_resolved=*/false);
  EXPECT_TRUE(results[3].not_applicable);
  EXPECT_NE(gates::FormatGateReport(results).find("N/A incident-resolved: "), std::string::npos);
  EXPECT_TRUE(gates::AllPassed(results));
}

TEST(AlertChainGatesTest, APrometheusQueryErrorIsNamedInAlertFired) {
  ChainReport r;
  r.alertname = kFastBurnAlert;
  r.problems = {"cannot read ALERTS from Prometheus: connection refused"};
  const auto results = AlertChainGates(r, kStart);
  EXPECT_EQ(results[0].message,
            "AvailabilityErrorBudgetBurnFast never reached firing in Prometheus (cannot read ALERTS from "
            "Prometheus: connection refused)");
}

}  // namespace
}  // namespace aftershock::alerting
