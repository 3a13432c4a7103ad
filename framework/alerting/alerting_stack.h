// AlertingStack: a private Prometheus + Alertmanager + two webhook sinks on loopback, for checking
// the alert chain rule -> Alertmanager -> incident (seed 001, "Alert-Validierung").
//
// Start() renders the shipped manifests (manifests/prometheus/) with the run's time scale, starts
// the sinks "test" and "production", then Alertmanager, then Prometheus, each with its own
// temporary data directory and a free loopback port, never the system services. It returns once
// both answer /-/ready and Prometheus has found Alertmanager, or throws with the logs' tails.
// Destruction (or Stop) stops Prometheus, then Alertmanager (SIGTERM, then SIGKILL, by PID), then
// the sinks, copies configs and logs into artifacts_dir, and removes the temporary directory; this
// also happens when Start throws half-way.
//
//   AlertingStack stack = AlertingStack::Start({.scrape_targets = {"127.0.0.1:8080"},
//                                               .time_scale = 0.02});
//   PrometheusClient prometheus = stack.client();
//   WaitForAlertState(prometheus, "AvailabilityErrorBudgetBurnFast", "firing", seconds(90));
//   stack.test_sink().Incidents();
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_ALERTING_STACK_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_ALERTING_STACK_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/alerting/post_run_summary.h"
#include "framework/alerting/prometheus_client.h"
#include "framework/alerting/rule_rendering.h"
#include "framework/alerting/webhook_sink.h"
#include "framework/process/child_process.h"

namespace aftershock::alerting {

struct AlertingStackOptions {
  std::vector<std::string> scrape_targets{};  // host:port of the work service's /metrics
  double time_scale = 1.0;                  // see rule_rendering.h
  // Empty = the shipped files under manifests/prometheus/ of this source tree.
  std::string rules_path{};
  // SEEDED MISCONFIGURATION for verdict tests: load-test alerts go to the production receiver.
  bool misroute_test_alerts = false;
  // When set, the rendered configs and both logs are copied here on stop.
  std::string artifacts_dir{};
  std::string alertmanager_template_path{};  // empty = shipped alertmanager.yaml
  std::string prometheus_template_path{};    // empty = shipped prometheus.yaml
  std::string prometheus_binary = "/usr/bin/prometheus";
  std::string alertmanager_binary = "/usr/bin/prometheus-alertmanager";
  std::chrono::milliseconds ready_timeout = std::chrono::seconds(30);
};

class AlertingStack {
 public:
  // Throws std::invalid_argument for bad options (no targets, a too small time scale) and
  // std::runtime_error when a process does not become ready in time (with its log's tail).
  static AlertingStack Start(const AlertingStackOptions& options);

  AlertingStack(AlertingStack&&) noexcept;
  AlertingStack& operator=(AlertingStack&&) noexcept;
  ~AlertingStack();

  PrometheusClient client() const;
  std::string prometheus_address() const;    // 127.0.0.1:port
  std::string alertmanager_address() const;  // 127.0.0.1:port
  pid_t prometheus_pid() const;              // -1 before start
  pid_t alertmanager_pid() const;
  const WebhookSink& test_sink() const;
  const WebhookSink& production_sink() const;
  const EvaluationIntervals& intervals() const;
  double time_scale() const;
  // SummaryOptions fitting this run's scrape interval (rate window = 4 scrapes).
  SummaryOptions summary_options() const;
  // The rendered configs, as written for the processes.
  const std::string& rendered_rules() const;
  const std::string& rendered_alertmanager_config() const;
  const std::string& rendered_prometheus_config() const;

  // Stops everything (idempotent), collects artifacts, removes the temporary directory.
  void Stop();

 private:
  struct State;
  AlertingStack();
  std::unique_ptr<State> state_;
};

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_ALERTING_STACK_H_
