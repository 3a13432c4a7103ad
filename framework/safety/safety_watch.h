// SafetyWatch: a scenario's stop conditions as configured (config::StopConditionSpec, a manifest's
// `stop_conditions:`) plus the operator halt, turned into the ScenarioPlan::abort_monitor that
// RunScenario starts with the load. PromQL conditions read the suite's Prometheus; signals are the
// runner's (runner_signals.h) or a suite's own, by name. Check() runs before anything starts, so a
// condition that could never be read (an unknown signal, PromQL without a Prometheus) fails the
// scenario up front, naming the manifest line.
//
//   SafetyWatch watch{.conditions = config.stop_conditions,
//                     .prometheus = host_signals.client(),           // for `promql:` conditions
//                     .halt = OperatorHalt("/run/aftershock/halt")};
//   watch.Check();                                    // throws std::invalid_argument "<file:line>: ..."
//   plan.abort_monitor = watch.MonitorFactory();      // empty when there is nothing to watch
#ifndef AFTERSHOCK_FRAMEWORK_SAFETY_SAFETY_WATCH_H_
#define AFTERSHOCK_FRAMEWORK_SAFETY_SAFETY_WATCH_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/alerting/prometheus_client.h"
#include "framework/config/scenario_config.h"
#include "framework/load/open_model_runner.h"
#include "framework/safety/abort_envelope.h"
#include "framework/safety/operator_halt.h"
#include "framework/safety/runner_signals.h"
#include "framework/scenario/abort_monitor.h"

namespace aftershock::safety {

struct SafetyWatch {
  std::vector<config::StopConditionSpec> conditions{};
  std::optional<alerting::PrometheusClient> prometheus{};  // required by `promql:` conditions
  std::map<std::string, SignalSource> signals{};            // a suite's own, beside the runner's
  std::optional<OperatorHalt> halt{};
  AbortEnvelopeOptions options{};

  // Throws std::invalid_argument "<file:line>: stop condition 'x': ..." for a condition that cannot
  // be built; a suite signal may not shadow a runner signal.
  void Check() const;
  bool empty() const { return conditions.empty() && !halt; }
  // Builds the conditions over `runner` (Check first).
  std::vector<StopCondition> Build(const load::OpenModelRunner& runner) const;
  // For ScenarioPlan::abort_monitor: an AbortEnvelope over Build(runner); empty when empty().
  std::function<std::unique_ptr<scenario::AbortMonitor>(const load::OpenModelRunner&)> MonitorFactory() const;
};

}  // namespace aftershock::safety

#endif  // AFTERSHOCK_FRAMEWORK_SAFETY_SAFETY_WATCH_H_
