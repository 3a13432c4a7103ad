#include "framework/alerting/alerting_stack.h"


#include <nlohmann/json.hpp>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "framework/alerting/local_server.h"
#include "framework/alerting/prom_duration.h"
#include "framework/net/http_exchange.h"

#ifndef AFTERSHOCK_SOURCE_DIR
#error "AFTERSHOCK_SOURCE_DIR must be defined (the repository root)"
#endif

namespace aftershock::alerting {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;

constexpr const char* kHost = kLoopbackHost;
constexpr auto kPollInterval = milliseconds(200);

std::string ShippedManifest(const std::string& name) {
  return std::string(AFTERSHOCK_SOURCE_DIR) + "/manifests/prometheus/" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string EventsAsJsonLines(const WebhookSink& sink) {
  std::string out;
  for (const WebhookEvent& event : sink.Events()) {
    nlohmann::json line = {{"received_unix_s", ToUnixSeconds(event.received_at)},
                           {"parse_error", event.parse_error}};
    try {
      line["body"] = nlohmann::json::parse(event.body);
    } catch (const nlohmann::json::exception&) {
      line["body"] = event.body;
    }
    out += line.dump() + "\n";
  }
  return out;
}

}  // namespace

struct AlertingStack::State {
  AlertingStackOptions options;
  fs::path work_dir;
  std::unique_ptr<WebhookSink> test_sink;
  std::unique_ptr<WebhookSink> production_sink;
  std::optional<process::ChildProcess> alertmanager;
  std::optional<process::ChildProcess> prometheus;
  pid_t alertmanager_pid = -1;
  pid_t prometheus_pid = -1;
  int alertmanager_port = 0;
  int prometheus_port = 0;
  EvaluationIntervals intervals{};
  std::string rules;
  std::string alertmanager_config;
  std::string prometheus_config;
  bool stopped = false;

  fs::path LogPath(const char* name) const { return work_dir / (std::string(name) + ".log"); }

  // Polls GET /-/ready until 200, the deadline, or the process' exit.
  void WaitReady(process::ChildProcess& child, const char* name, int port) {
    WaitHttpReady(child, name, port, "/-/ready", LogPath(name), options.ready_timeout);
  }

  // Polls /api/v1/alertmanagers until Prometheus lists Alertmanager as active: before that, an
  // alert that fires has nowhere to go.
  void WaitPrometheusFindsAlertmanager() {
    const auto deadline = Steady::now() + options.ready_timeout;
    const std::string wanted = std::to_string(alertmanager_port);
    std::string last;
    while (Steady::now() < deadline) {
      const net::HttpResult r = net::HttpExchange(
          {.method = "GET", .host = kHost, .port = prometheus_port, .target = "/api/v1/alertmanagers"},
          milliseconds(1000));
      if (r.answered() && r.status == 200) {
        last = r.body;
        try {
          const auto root = nlohmann::json::parse(r.body);
          for (const auto& am : root.at("data").at("activeAlertmanagers")) {
            if (am.value("url", "").find(":" + wanted + "/") != std::string::npos) return;
          }
        } catch (const nlohmann::json::exception& e) {
          last = e.what();
        }
      } else {
        last = r.answered() ? "HTTP " + std::to_string(r.status) : r.error;
      }
      std::this_thread::sleep_for(kPollInterval);
    }
    throw std::runtime_error("Prometheus did not discover Alertmanager at " + std::string(kHost) +
                             ":" + wanted + " within " + FormatPromDuration(options.ready_timeout) +
                             " (last: " + last + "); log tail:\n" + LogTail(LogPath("prometheus")));
  }

  void CollectArtifacts() {
    if (options.artifacts_dir.empty() || work_dir.empty()) return;
    const fs::path target(options.artifacts_dir);
    fs::create_directories(target);
    for (const char* name : {"rules.yaml", "alertmanager.yaml", "prometheus.yaml",
                             "alertmanager.log", "prometheus.log"}) {
      std::error_code ignored;
      if (fs::exists(work_dir / name)) {
        fs::copy_file(work_dir / name, target / name, fs::copy_options::overwrite_existing, ignored);
      }
    }
    if (test_sink) WriteFile(target / "webhook-test.jsonl", EventsAsJsonLines(*test_sink));
    if (production_sink) {
      WriteFile(target / "webhook-production.jsonl", EventsAsJsonLines(*production_sink));
    }
  }

  void StopAll() {
    if (stopped) return;
    stopped = true;
    // Prometheus first, so nothing new reaches Alertmanager; then Alertmanager, then the sinks.
    try {
      if (prometheus) prometheus->Stop(std::chrono::seconds(5));
    } catch (const std::exception&) {
      // ~ChildProcess retries the stop.
    }
    try {
      if (alertmanager) alertmanager->Stop(std::chrono::seconds(5));
    } catch (const std::exception&) {
    }
    if (test_sink) test_sink->Stop();
    if (production_sink) production_sink->Stop();
    try {
      CollectArtifacts();
    } catch (const std::exception&) {
      // Artifacts are best effort; the stop itself must not fail.
    }
    if (!work_dir.empty()) {
      std::error_code ignored;
      fs::remove_all(work_dir, ignored);
    }
  }
};

AlertingStack::AlertingStack() : state_(std::make_unique<State>()) {}
AlertingStack::AlertingStack(AlertingStack&&) noexcept = default;
AlertingStack& AlertingStack::operator=(AlertingStack&& other) noexcept {
  if (this != &other) {
    if (state_) state_->StopAll();
    state_ = std::move(other.state_);
  }
  return *this;
}
AlertingStack::~AlertingStack() {
  if (state_) state_->StopAll();
}

AlertingStack AlertingStack::Start(const AlertingStackOptions& options) {
  if (options.scrape_targets.empty()) throw std::invalid_argument("AlertingStack: no scrape targets");
  AlertingStack stack;  // its destructor cleans up whatever was started if anything below throws
  State& s = *stack.state_;
  s.options = options;
  const std::string rules_path = options.rules_path.empty() ? ShippedManifest("rules.yaml")
                                                            : options.rules_path;
  const std::string am_template_path = options.alertmanager_template_path.empty()
                                           ? ShippedManifest("alertmanager.yaml")
                                           : options.alertmanager_template_path;
  const std::string prom_template_path = options.prometheus_template_path.empty()
                                             ? ShippedManifest("prometheus.yaml")
                                             : options.prometheus_template_path;

  // Render first: a bad scale fails before anything runs.
  s.rules = RenderRules(ReadFile(rules_path), options.time_scale);
  const milliseconds shortest = ShortestRangeWindow(s.rules);
  s.intervals = ChooseIntervals(shortest);
  CheckWindows(shortest, s.intervals);

  s.work_dir = MakeTempDir("aftershock-alerting");
  s.test_sink = std::make_unique<WebhookSink>(WebhookSinkOptions{"test", "[LOAD-TEST] "});
  s.production_sink = std::make_unique<WebhookSink>(WebhookSinkOptions{"production", ""});

  s.alertmanager_config = RenderAlertmanagerConfig(
      ReadFile(am_template_path),
      {.test_webhook_url = s.test_sink->url(),
       .production_webhook_url = s.production_sink->url(),
       .time_scale = options.time_scale,
       .misroute_test_alerts = options.misroute_test_alerts});
  s.alertmanager_port = FreeLoopbackPort();
  s.prometheus_port = FreeLoopbackPort();
  while (s.prometheus_port == s.alertmanager_port) s.prometheus_port = FreeLoopbackPort();
  s.prometheus_config = RenderPrometheusConfig(
      ReadFile(prom_template_path),
      {.scrape_targets = options.scrape_targets,
       .rule_file = (s.work_dir / "rules.yaml").string(),
       .alertmanager_address = std::string(kHost) + ":" + std::to_string(s.alertmanager_port),
       .intervals = s.intervals});
  WriteFile(s.work_dir / "rules.yaml", s.rules);
  WriteFile(s.work_dir / "alertmanager.yaml", s.alertmanager_config);
  WriteFile(s.work_dir / "prometheus.yaml", s.prometheus_config);
  fs::create_directories(s.work_dir / "alertmanager-data");
  fs::create_directories(s.work_dir / "prometheus-data");

  process::ChildOptions am;
  am.program = options.alertmanager_binary;
  am.args = {"--config.file=" + (s.work_dir / "alertmanager.yaml").string(),
             "--storage.path=" + (s.work_dir / "alertmanager-data").string(),
             "--web.listen-address=" + std::string(kHost) + ":" + std::to_string(s.alertmanager_port),
             "--cluster.listen-address="};
  am.log_path = s.LogPath("alertmanager").string();
  am.working_dir = s.work_dir.string();
  s.alertmanager.emplace(process::ChildProcess::Start(am));
  s.alertmanager_pid = s.alertmanager->pid();
  s.WaitReady(*s.alertmanager, "alertmanager", s.alertmanager_port);

  process::ChildOptions prom;
  prom.program = options.prometheus_binary;
  prom.args = {"--config.file=" + (s.work_dir / "prometheus.yaml").string(),
               "--storage.tsdb.path=" + (s.work_dir / "prometheus-data").string(),
               "--web.listen-address=" + std::string(kHost) + ":" + std::to_string(s.prometheus_port)};
  prom.log_path = s.LogPath("prometheus").string();
  prom.working_dir = s.work_dir.string();
  s.prometheus.emplace(process::ChildProcess::Start(prom));
  s.prometheus_pid = s.prometheus->pid();
  s.WaitReady(*s.prometheus, "prometheus", s.prometheus_port);
  s.WaitPrometheusFindsAlertmanager();
  return stack;
}

void AlertingStack::Stop() {
  if (state_) state_->StopAll();
}

PrometheusClient AlertingStack::client() const { return PrometheusClient(kHost, state_->prometheus_port); }
std::string AlertingStack::prometheus_address() const {
  return std::string(kHost) + ":" + std::to_string(state_->prometheus_port);
}
std::string AlertingStack::alertmanager_address() const {
  return std::string(kHost) + ":" + std::to_string(state_->alertmanager_port);
}
pid_t AlertingStack::prometheus_pid() const { return state_->prometheus_pid; }
pid_t AlertingStack::alertmanager_pid() const { return state_->alertmanager_pid; }
const WebhookSink& AlertingStack::test_sink() const { return *state_->test_sink; }
const WebhookSink& AlertingStack::production_sink() const { return *state_->production_sink; }
const EvaluationIntervals& AlertingStack::intervals() const { return state_->intervals; }
double AlertingStack::time_scale() const { return state_->options.time_scale; }
SummaryOptions AlertingStack::summary_options() const {
  SummaryOptions summary;
  summary.rate_window = state_->intervals.scrape * kMinSamplesPerWindow;
  summary.step = state_->intervals.scrape;
  return summary;
}
const std::string& AlertingStack::rendered_rules() const { return state_->rules; }
const std::string& AlertingStack::rendered_alertmanager_config() const {
  return state_->alertmanager_config;
}
const std::string& AlertingStack::rendered_prometheus_config() const {
  return state_->prometheus_config;
}

}  // namespace aftershock::alerting
