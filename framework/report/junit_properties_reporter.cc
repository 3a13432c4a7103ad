#include "framework/report/junit_properties_reporter.h"

#include <cstdio>

namespace aftershock::report {
namespace {

std::string Fixed(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

}  // namespace

void JunitPropertiesReporter::OnVerdict(const ScenarioInfo& /*info*/, const ScenarioReport& report) {
  if (!record_ || report.outcome == nullptr) return;
  const scenario::ScenarioOutcome& outcome = *report.outcome;
  const auto& h = outcome.load.health;
  record_("offered_rate", Fixed(h.offered_rate));
  record_("achieved_rate", Fixed(h.achieved_rate));
  record_("dispatch_lag_p99_ms", Fixed(h.lag_p99_ms));
  record_("ledger_acknowledged", std::to_string(outcome.ledger ? outcome.ledger->acknowledged() : 0));
  for (const auto& g : outcome.gates) {
    record_("gate_" + g.name, !g.passed ? "fail" : g.not_applicable ? "not-applicable" : "pass");
    for (const auto& [name, value] : g.figures) record_(name, Fixed(value));
  }
}

}  // namespace aftershock::report
