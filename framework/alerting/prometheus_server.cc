#include "framework/alerting/prometheus_server.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "framework/alerting/local_server.h"
#include "framework/alerting/prom_duration.h"
#include "framework/net/loopback.h"
#include "framework/process/child_process.h"

namespace aftershock::alerting {
namespace {

namespace fs = std::filesystem;

bool IsJobName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string RenderScrapeConfig(const PrometheusServerOptions& options) {
  if (options.jobs.empty()) throw std::invalid_argument("PrometheusServer: no scrape jobs");
  if (options.scrape_interval < std::chrono::milliseconds(100) || options.scrape_interval > std::chrono::minutes(5)) {
    throw std::invalid_argument("PrometheusServer: scrape interval " +
                                std::to_string(options.scrape_interval.count()) + " ms is outside 100 ms .. 5 min");
  }
  const std::string interval = FormatPromDuration(options.scrape_interval);
  std::string yaml = "# Rendered by aftershock (framework/alerting/prometheus_server.h).\nglobal:\n"
                     "  scrape_interval: " + interval + "\n  evaluation_interval: " + interval +
                     "\nscrape_configs:\n";
  for (const auto& [job, targets] : options.jobs) {
    if (!IsJobName(job)) throw std::invalid_argument("PrometheusServer: bad job name '" + job + "'");
    if (targets.empty()) throw std::invalid_argument("PrometheusServer: job '" + job + "' has no targets");
    yaml += "  - job_name: " + job + "\n    metrics_path: /metrics\n    static_configs:\n      - targets: [";
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const std::string& t = targets[i];
      if (!net::IsLoopbackAddress(t)) {
        throw std::invalid_argument("PrometheusServer: target '" + t + "' of job '" + job +
                                    "' is not a loopback host:port");
      }
      yaml += (i ? ", \"" : "\"") + t + "\"";
    }
    yaml += "]\n";
  }
  return yaml;
}

struct PrometheusServer::State {
  PrometheusServerOptions options;
  fs::path work_dir;
  std::optional<process::ChildProcess> prometheus;
  int port = 0;
  std::string config;
  bool stopped = false;

  void StopAll() {
    if (stopped) return;
    stopped = true;
    try {
      if (prometheus) prometheus->Stop(std::chrono::seconds(5));
    } catch (const std::exception&) {
      // ~ChildProcess retries the stop.
    }
    prometheus.reset();
    if (!options.artifacts_dir.empty() && !work_dir.empty()) {
      std::error_code ignored;
      fs::create_directories(options.artifacts_dir, ignored);
      for (const char* name : {"prometheus.yaml", "prometheus.log"}) {
        if (fs::exists(work_dir / name)) {
          fs::copy_file(work_dir / name, fs::path(options.artifacts_dir) / name, fs::copy_options::overwrite_existing,
                        ignored);
        }
      }
    }
    if (!work_dir.empty()) {
      std::error_code ignored;
      fs::remove_all(work_dir, ignored);
    }
  }
};

PrometheusServer::PrometheusServer() : state_(std::make_unique<State>()) {}
PrometheusServer::PrometheusServer(PrometheusServer&&) noexcept = default;
PrometheusServer& PrometheusServer::operator=(PrometheusServer&& other) noexcept {
  if (this != &other) {
    if (state_) state_->StopAll();
    state_ = std::move(other.state_);
  }
  return *this;
}
PrometheusServer::~PrometheusServer() {
  if (state_) state_->StopAll();
}

PrometheusServer PrometheusServer::Start(const PrometheusServerOptions& options) {
  PrometheusServer server;  // its destructor cleans up whatever was started if anything below throws
  State& s = *server.state_;
  s.options = options;
  s.config = RenderScrapeConfig(options);
  s.work_dir = MakeTempDir("aftershock-prometheus");
  {
    std::ofstream out(s.work_dir / "prometheus.yaml", std::ios::binary | std::ios::trunc);
    out << s.config;
    if (!out) throw std::runtime_error("cannot write " + (s.work_dir / "prometheus.yaml").string());
  }
  fs::create_directories(s.work_dir / "data");
  s.port = FreeLoopbackPort();
  process::ChildOptions child;
  child.program = options.prometheus_binary;
  child.args = {"--config.file=" + (s.work_dir / "prometheus.yaml").string(),
                "--storage.tsdb.path=" + (s.work_dir / "data").string(),
                "--web.listen-address=" + std::string(kLoopbackHost) + ":" + std::to_string(s.port)};
  child.log_path = (s.work_dir / "prometheus.log").string();
  child.working_dir = s.work_dir.string();
  s.prometheus.emplace(process::ChildProcess::Start(child));
  WaitHttpReady(*s.prometheus, "prometheus", s.port, "/-/ready", s.work_dir / "prometheus.log",
                          options.ready_timeout);
  return server;
}

void PrometheusServer::Stop() {
  if (state_) state_->StopAll();
}

PrometheusClient PrometheusServer::client(std::chrono::milliseconds timeout) const {
  return PrometheusClient(kLoopbackHost, state_->port, timeout);
}
std::string PrometheusServer::address() const {
  return std::string(kLoopbackHost) + ":" + std::to_string(state_->port);
}
int PrometheusServer::port() const { return state_->port; }
pid_t PrometheusServer::pid() const { return state_->prometheus ? state_->prometheus->pid() : -1; }
const std::string& PrometheusServer::config() const { return state_->config; }

}  // namespace aftershock::alerting
