// JunitPropertiesReporter: every figure of the run as a (name, value) property, for the JUnit XML.
// report/ knows no GoogleTest: the suite's main hands it the function that records a property
// (testing::Test::RecordProperty), a test hands it one that collects them.
//
// Properties, in this order: offered_rate, achieved_rate, dispatch_lag_p99_ms (3 decimals),
// ledger_acknowledged (integer), then per gate "gate_<name>" = "pass" | "fail" followed by the gate's
// figures (3 decimals). tools/check-junit.sh checks them in the XML.
//
//   JunitPropertiesReporter junit([](const std::string& k, const std::string& v) { props[k] = v; });
#ifndef AFTERSHOCK_FRAMEWORK_REPORT_JUNIT_PROPERTIES_REPORTER_H_
#define AFTERSHOCK_FRAMEWORK_REPORT_JUNIT_PROPERTIES_REPORTER_H_

#include <functional>
#include <string>

#include "framework/report/scenario_reporter.h"

namespace aftershock::report {

class JunitPropertiesReporter : public ScenarioReporter {
 public:
  using RecordProperty = std::function<void(const std::string& name, const std::string& value)>;
  explicit JunitPropertiesReporter(RecordProperty record) : record_(std::move(record)) {}
  void OnVerdict(const ScenarioInfo& info, const ScenarioReport& report) override;

 private:
  RecordProperty record_;
};

}  // namespace aftershock::report

#endif  // AFTERSHOCK_FRAMEWORK_REPORT_JUNIT_PROPERTIES_REPORTER_H_
