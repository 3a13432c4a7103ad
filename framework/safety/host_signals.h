// HostSignals: the host's own figures as real PromQL for stop conditions (docs/safety.md): a node
// exporter (Debian prometheus-node-exporter, only the collectors asked for) and a private Prometheus
// (alerting::PrometheusServer) scraping it as job "node", plus any further jobs (the system under
// test's /metrics), each on a free loopback port. Start() returns once Prometheus holds two scrapes
// of the node exporter, so rate() over a short range answers from the first reading on. Everything
// is stopped by PID on destruction (or Stop), also when Start throws half-way.
//
//   HostSignals host = HostSignals::Start({.jobs = {{"gateway", {"127.0.0.1:8080"}}}});
//   watch.prometheus = host.client();
//   // stop_conditions: promql: '100 * (1 - avg(rate(node_cpu_seconds_total{job="node",mode="idle"}[15s])))'
#ifndef AFTERSHOCK_FRAMEWORK_SAFETY_HOST_SIGNALS_H_
#define AFTERSHOCK_FRAMEWORK_SAFETY_HOST_SIGNALS_H_

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/alerting/prometheus_client.h"

namespace aftershock::safety {

struct HostSignalsOptions {
  // node exporter collectors (every other one is off): CPU, disk space, memory, load average.
  std::vector<std::string> collectors = {"cpu", "filesystem", "meminfo", "loadavg"};
  std::map<std::string, std::vector<std::string>> jobs{};  // further scrape jobs, name -> host:port
  std::chrono::milliseconds scrape_interval{1000};
  std::string node_exporter_binary = "/usr/bin/prometheus-node-exporter";
  std::string prometheus_binary = "/usr/bin/prometheus";
  std::string artifacts_dir{};  // prometheus.yaml, prometheus.log and node-exporter.log go here on stop
  std::chrono::milliseconds ready_timeout = std::chrono::seconds(30);
};

class HostSignals {
 public:
  // Throws std::invalid_argument for bad options (no collectors, a job named "node"),
  // std::runtime_error when a process does not get ready (with its log's tail).
  static HostSignals Start(const HostSignalsOptions& options);

  HostSignals(HostSignals&&) noexcept;
  HostSignals& operator=(HostSignals&&) noexcept;
  ~HostSignals();

  alerting::PrometheusClient client() const;
  std::string prometheus_address() const;     // 127.0.0.1:port
  std::string node_exporter_address() const;  // 127.0.0.1:port
  pid_t prometheus_pid() const;               // -1 once stopped
  pid_t node_exporter_pid() const;

  void Stop();  // idempotent

 private:
  struct State;
  HostSignals();
  std::unique_ptr<State> state_;
};

}  // namespace aftershock::safety

#endif  // AFTERSHOCK_FRAMEWORK_SAFETY_HOST_SIGNALS_H_
