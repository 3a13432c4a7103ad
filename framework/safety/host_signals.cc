#include "framework/safety/host_signals.h"

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <thread>

#include "framework/alerting/local_server.h"
#include "framework/alerting/prometheus_server.h"
#include "framework/process/child_process.h"

namespace aftershock::safety {
namespace {

namespace fs = std::filesystem;
using alerting::kLoopbackHost;

}  // namespace

struct HostSignals::State {
  HostSignalsOptions options;
  fs::path work_dir;
  std::optional<process::ChildProcess> node_exporter;
  std::optional<alerting::PrometheusServer> prometheus;
  int node_port = 0;
  bool stopped = false;

  void StopAll() {
    if (stopped) return;
    stopped = true;
    if (prometheus) prometheus->Stop();  // first: nothing scrapes a stopped exporter
    try {
      if (node_exporter) node_exporter->Stop(std::chrono::seconds(5));
    } catch (const std::exception&) {
      // ~ChildProcess retries the stop.
    }
    node_exporter.reset();
    std::error_code ignored;
    if (!options.artifacts_dir.empty() && fs::exists(work_dir / "node-exporter.log")) {
      fs::create_directories(options.artifacts_dir, ignored);
      fs::copy_file(work_dir / "node-exporter.log", fs::path(options.artifacts_dir) / "node-exporter.log",
                    fs::copy_options::overwrite_existing, ignored);
    }
    if (!work_dir.empty()) fs::remove_all(work_dir, ignored);
  }

  // Two scrapes of the node exporter in Prometheus, so a rate() over a short range has its samples.
  void WaitForScrapes() {
    const alerting::PrometheusClient client = prometheus->client();
    const auto deadline = std::chrono::steady_clock::now() + options.ready_timeout;
    std::string last = "no answer yet";
    while (std::chrono::steady_clock::now() < deadline) {
      try {
        const std::optional<double> n = client.QueryScalar("count_over_time(up{job=\"node\"}[5m])");
        const std::optional<double> up = client.QueryScalar("up{job=\"node\"}");
        if (n && up && *n >= 2 && *up == 1) return;
        last = "scrapes " + (n ? std::to_string(*n) : std::string("none")) + ", up " +
               (up ? std::to_string(*up) : std::string("none"));
      } catch (const std::exception& e) {
        last = e.what();
      }
      std::this_thread::sleep_for(options.scrape_interval / 4);
    }
    throw std::runtime_error("Prometheus " + prometheus->address() + " did not scrape the node exporter at " +
                             std::string(kLoopbackHost) + ":" + std::to_string(node_port) + " twice in time (last: " +
                             last + "); node exporter log:\n" +
                             alerting::LogTail(work_dir / "node-exporter.log"));
  }
};

HostSignals::HostSignals() : state_(std::make_unique<State>()) {}
HostSignals::HostSignals(HostSignals&&) noexcept = default;
HostSignals& HostSignals::operator=(HostSignals&& other) noexcept {
  if (this != &other) {
    if (state_) state_->StopAll();
    state_ = std::move(other.state_);
  }
  return *this;
}
HostSignals::~HostSignals() {
  if (state_) state_->StopAll();
}

HostSignals HostSignals::Start(const HostSignalsOptions& options) {
  if (options.collectors.empty()) throw std::invalid_argument("HostSignals: no node exporter collectors");
  for (const std::string& c : options.collectors) {
    if (c.empty() || c.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
      throw std::invalid_argument("HostSignals: bad collector name '" + c + "'");
    }
  }
  if (options.jobs.count("node") != 0) throw std::invalid_argument("HostSignals: job 'node' is the node exporter's");
  HostSignals host;  // its destructor stops whatever was started if anything below throws
  State& s = *host.state_;
  s.options = options;
  s.work_dir = alerting::MakeTempDir("aftershock-host-signals");
  s.node_port = alerting::FreeLoopbackPort();
  process::ChildOptions node;
  node.program = options.node_exporter_binary;
  node.args = {"--web.listen-address=" + std::string(kLoopbackHost) + ":" + std::to_string(s.node_port),
               "--collector.disable-defaults"};
  for (const std::string& c : options.collectors) node.args.push_back("--collector." + c);
  node.log_path = (s.work_dir / "node-exporter.log").string();
  node.working_dir = s.work_dir.string();
  s.node_exporter.emplace(process::ChildProcess::Start(node));
  alerting::WaitHttpReady(*s.node_exporter, "node exporter", s.node_port, "/metrics",
                                    s.work_dir / "node-exporter.log", options.ready_timeout);

  alerting::PrometheusServerOptions prom;
  prom.jobs = options.jobs;
  prom.jobs["node"] = {std::string(kLoopbackHost) + ":" + std::to_string(s.node_port)};
  prom.scrape_interval = options.scrape_interval;
  prom.prometheus_binary = options.prometheus_binary;
  prom.artifacts_dir = options.artifacts_dir;
  prom.ready_timeout = options.ready_timeout;
  s.prometheus.emplace(alerting::PrometheusServer::Start(prom));
  s.WaitForScrapes();
  return host;
}

void HostSignals::Stop() {
  if (state_) state_->StopAll();
}

alerting::PrometheusClient HostSignals::client() const { return state_->prometheus->client(); }
std::string HostSignals::prometheus_address() const { return state_->prometheus->address(); }
std::string HostSignals::node_exporter_address() const {
  return std::string(kLoopbackHost) + ":" + std::to_string(state_->node_port);
}
pid_t HostSignals::prometheus_pid() const { return state_->prometheus ? state_->prometheus->pid() : -1; }
pid_t HostSignals::node_exporter_pid() const { return state_->node_exporter ? state_->node_exporter->pid() : -1; }

}  // namespace aftershock::safety
