// SafetyWatch: the configured conditions are checked before the run (unknown signal, PromQL without
// a Prometheus, a suite signal shadowing a generator signal) and built over a runner.
#include "framework/safety/safety_watch.h"

#include <stdexcept>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::safety {
namespace {

using ::testing::HasSubstr;

config::StopConditionSpec Signal(std::string name, std::string signal) {
  return {.name = std::move(name), .promql = {}, .signal = std::move(signal), .window_seconds = 5,
          .comparator = ">", .threshold = 0.05, .for_seconds = 0, .breach_on_failure = true,
          .source = "sets/x.yaml:12"};
}

std::string ErrorOf(const SafetyWatch& watch) {
  try {
    watch.Check();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SafetyWatch, AnUnknownSignalIsAnErrorListingTheKnownOnes) {
  SafetyWatch watch{.conditions = {Signal("resets", "reset_ratio")}};
  EXPECT_EQ(ErrorOf(watch),
            "sets/x.yaml:12: stop condition 'resets': unknown signal 'reset_ratio' (known: transport_error_ratio, "
            "not_sent_ratio, error_ratio, shed_ratio, p99_latency_ms, in_flight)");
  watch.signals["reset_ratio"] = [](std::chrono::milliseconds) { return Reading::Of(0); };
  EXPECT_EQ(ErrorOf(watch), "");
}

TEST(SafetyWatch, PromqlNeedsThePrometheusOfTheSuite) {
  config::StopConditionSpec cpu = Signal("cpu", "");
  cpu.promql = "avg(rate(node_cpu_seconds_total[30s]))";
  SafetyWatch watch{.conditions = {cpu}};
  EXPECT_THAT(ErrorOf(watch), HasSubstr("sets/x.yaml:12: stop condition 'cpu': a PromQL condition, but the suite gives "
                                        "no Prometheus"));
  watch.prometheus = alerting::PrometheusClient("127.0.0.1", 9090);
  EXPECT_EQ(ErrorOf(watch), "");
}

TEST(SafetyWatch, ASuiteSignalMayNotShadowAGeneratorSignal) {
  SafetyWatch watch{.signals = {{"error_ratio", [](std::chrono::milliseconds) { return Reading::Of(0); }}}};
  EXPECT_THAT(ErrorOf(watch), HasSubstr("suite signal 'error_ratio' has the name of a generator signal"));
}

TEST(SafetyWatch, NothingToWatchGivesNoMonitor) {
  EXPECT_TRUE(SafetyWatch{}.empty());
  EXPECT_FALSE(static_cast<bool>(SafetyWatch{}.MonitorFactory()));
  SafetyWatch halt_only{.halt = OperatorHalt("/nonexistent/halt")};
  EXPECT_FALSE(halt_only.empty());
  EXPECT_TRUE(static_cast<bool>(halt_only.MonitorFactory()));
}

}  // namespace
}  // namespace aftershock::safety
