// PrometheusServer: a private Prometheus on a free loopback port, scraping the jobs it is given,
// with no rules and no Alertmanager (the alert chain has AlertingStack for that). It is what a stop
// condition's PromQL is read from (framework/safety/host_signals.h adds a node exporter to it).
//
// Start() writes the configuration into a temporary directory, starts /usr/bin/prometheus with its
// own data directory (never the system service), and returns once /-/ready answers, or throws with
// the log's tail. Destruction (or Stop) stops it by PID (SIGTERM, then SIGKILL), copies the
// configuration and the log into artifacts_dir when set, and removes the temporary directory.
//
//   PrometheusServer prometheus = PrometheusServer::Start({.jobs = {{"gateway", {"127.0.0.1:8080"}}}});
//   PrometheusClient client = prometheus.client();
//   client.QueryVector("up");
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_PROMETHEUS_SERVER_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_PROMETHEUS_SERVER_H_

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/alerting/prometheus_client.h"

namespace aftershock::alerting {

struct PrometheusServerOptions {
  // job name -> host:port targets (loopback only), scraped at /metrics.
  std::map<std::string, std::vector<std::string>> jobs{};
  std::chrono::milliseconds scrape_interval{1000};
  std::string prometheus_binary = "/usr/bin/prometheus";
  std::string artifacts_dir{};  // when set, prometheus.yaml and prometheus.log are copied here on stop
  std::chrono::milliseconds ready_timeout = std::chrono::seconds(30);
};

class PrometheusServer {
 public:
  // Throws std::invalid_argument for no jobs, a bad job name, a non-loopback target or a scrape
  // interval outside 100 ms .. 5 min; std::runtime_error when Prometheus does not get ready.
  static PrometheusServer Start(const PrometheusServerOptions& options);

  PrometheusServer(PrometheusServer&&) noexcept;
  PrometheusServer& operator=(PrometheusServer&&) noexcept;
  ~PrometheusServer();

  PrometheusClient client(std::chrono::milliseconds timeout = std::chrono::seconds(2)) const;
  std::string address() const;  // 127.0.0.1:port
  int port() const;
  pid_t pid() const;            // -1 once stopped
  const std::string& config() const;  // the rendered prometheus.yaml

  // Stops Prometheus (idempotent), collects artifacts, removes the temporary directory.
  void Stop();

 private:
  struct State;
  PrometheusServer();
  std::unique_ptr<State> state_;
};

// The prometheus.yaml of those options (exposed for tests).
std::string RenderScrapeConfig(const PrometheusServerOptions& options);

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_PROMETHEUS_SERVER_H_
