// The real alert chain: Prometheus + Alertmanager (Debian packages) on loopback against a fake
// work service whose counters the test drives. Time scale 0.02: [5m] -> [6s], for: 5m -> 6s.
#include "framework/alerting/alerting_stack.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "framework/alerting/alert_chain_verdict.h"
#include "framework/alerting/internal/loopback_http_server.h"
#include "framework/alerting/post_run_summary.h"

namespace aftershock::alerting {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr double kTimeScale = 0.02;

// A stand-in for the work service's /metrics: counters the test drives from a feeder thread.
// Every 20 ms: 4 successes, plus 1 failure while errors are on (a 20 % 5xx ratio).
class FakeWorkService {
 public:
  FakeWorkService()
      : server_([this](const internal::ServerRequest& request) { return Handle(request); }),
        feeder_([this] { Feed(); }) {}
  ~FakeWorkService() {
    stop_ = true;
    feeder_.join();
    server_.Stop();
  }

  std::string target() const { return "127.0.0.1:" + std::to_string(server_.port()); }
  void SetErrors(bool on) { errors_ = on; }

 private:
  void Feed() {
    for (int tick = 0; tick < 30'000 && !stop_; ++tick) {  // bounded: at most 10 minutes
      ok_ += 4;
      if (errors_) failed_ += 1;
      std::this_thread::sleep_for(milliseconds(20));
    }
  }

  internal::ServerResponse Handle(const internal::ServerRequest& request) {
    if (request.target != "/metrics") return {404, "text/plain", "not found\n"};
    const long long ok = ok_.load();
    const long long failed = failed_.load();
    const long long all = ok + failed;
    std::ostringstream body;
    body << "# TYPE work_requests_total counter\n"
         << "work_requests_total{code=\"200\"} " << ok << "\n"
         << "work_requests_total{code=\"500\"} " << failed << "\n"
         // Every request took between 50 and 100 ms: p95 = 0.05 + 0.05 * 0.95 = 0.0975 s.
         << "# TYPE work_request_duration_seconds histogram\n"
         << "work_request_duration_seconds_bucket{le=\"0.05\"} 0\n"
         << "work_request_duration_seconds_bucket{le=\"0.1\"} " << all << "\n"
         << "work_request_duration_seconds_bucket{le=\"0.3\"} " << all << "\n"
         << "work_request_duration_seconds_bucket{le=\"+Inf\"} " << all << "\n"
         << "work_request_duration_seconds_sum " << 0.075 * static_cast<double>(all) << "\n"
         << "work_request_duration_seconds_count " << all << "\n"
         << "# TYPE process_start_time_seconds gauge\n"
         << "process_start_time_seconds 1714644000\n";
    return {200, "text/plain; version=0.0.4", body.str()};
  }

  std::atomic<long long> ok_{0};
  std::atomic<long long> failed_{0};
  std::atomic<bool> errors_{true};
  std::atomic<bool> stop_{false};
  internal::LoopbackHttpServer server_;
  std::thread feeder_;
};

// True when no process with this PID runs any more (or the PID now belongs to something else).
bool ProcessGone(pid_t pid, const std::string& program_part) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return cmdline.find(program_part) == std::string::npos;
}

std::string ArtifactsDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return (fs::current_path() / "artifacts" / "alerting" / info->name()).string();
}

// Polls `condition` every 250 ms for at most `timeout`.
template <typename Condition>
bool WaitUntil(Condition condition, milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(milliseconds(250));
  }
  return condition();
}

bool HasIncident(const WebhookSink& sink, const std::string& title, bool resolved) {
  for (const Incident& incident : sink.Incidents()) {
    if (incident.title == title && incident.resolved() == resolved) return true;
  }
  return false;
}

TEST(AlertingStackIntegration, FastBurnFiresReachesTestReceiverAndResolves) {
  FakeWorkService work;
  const WallTime run_start = WallClock::now();
  pid_t prometheus_pid = -1;
  pid_t alertmanager_pid = -1;
  {
    AlertingStack stack = AlertingStack::Start({.scrape_targets = {work.target()},
                                                .time_scale = kTimeScale,
                                                .artifacts_dir = ArtifactsDir()});
    prometheus_pid = stack.prometheus_pid();
    alertmanager_pid = stack.alertmanager_pid();
    ASSERT_GT(prometheus_pid, 0);
    ASSERT_GT(alertmanager_pid, 0);
    EXPECT_EQ(stack.intervals().scrape, seconds(1));
    EXPECT_EQ(stack.intervals().evaluation, seconds(1));
    EXPECT_NE(stack.rendered_rules().find("for: 6s\n"), std::string::npos);
    const PrometheusClient prometheus = stack.client();

    const std::optional<WallTime> fired =
        WaitForAlertState(prometheus, kFastBurnAlert, "firing", seconds(90));
    ASSERT_TRUE(fired.has_value()) << "fast burn never fired; alerts: "
                                   << prometheus.Alerts().size();
    const std::string title = "[LOAD-TEST] AvailabilityErrorBudgetBurnFast";
    ASSERT_TRUE(WaitUntil([&] { return HasIncident(stack.test_sink(), title, false); }, seconds(30)))
        << "no incident at the test receiver; raw events: " << stack.test_sink().RawEvents().size();

    const WallTime errors_stopped = WallClock::now();
    work.SetErrors(false);
    ASSERT_TRUE(WaitForAlertState(prometheus, kFastBurnAlert, "inactive", seconds(60)).has_value())
        << "fast burn did not resolve in Prometheus";
    ASSERT_TRUE(WaitUntil([&] { return HasIncident(stack.test_sink(), title, true); }, seconds(30)))
        << "incident not resolved at the test receiver";
    const WallTime until = WallClock::now();

    const ChainReport report = CheckChain(stack, run_start, until);
    std::cout << report.Describe();
    EXPECT_TRUE(report.Passed()) << report.Describe();
    EXPECT_TRUE(report.fired);
    EXPECT_TRUE(report.routed_to_test_receiver);
    EXPECT_TRUE(report.incident_created);
    EXPECT_TRUE(report.incident_resolved);
    ASSERT_TRUE(report.incident_resolved_at.has_value());
    EXPECT_GT(*report.incident_resolved_at, errors_stopped);
    EXPECT_TRUE(report.production_clean());
    EXPECT_TRUE(stack.production_sink().RawEvents().empty());
    EXPECT_TRUE(stack.production_sink().Incidents().empty());

    const std::vector<Incident> incidents = stack.test_sink().Incidents();
    ASSERT_EQ(incidents.size(), 1u);
    EXPECT_EQ(incidents[0].title, title);
    EXPECT_EQ(incidents[0].receiver, "test");
    EXPECT_EQ(incidents[0].labels.at("source"), "load-test");
    EXPECT_EQ(incidents[0].labels.at("severity"), "page");

    const PostRunSummary summary = Summarize(prometheus, run_start, until, stack.summary_options());
    std::cout << FormatSummary(summary);
    ASSERT_TRUE(summary.total_requests.has_value());
    EXPECT_GT(*summary.total_requests, 0);
    ASSERT_TRUE(summary.peak_error_ratio.has_value());
    EXPECT_NEAR(*summary.peak_error_ratio, 0.2, 0.05);
    ASSERT_TRUE(summary.peak_p95_seconds.has_value());
    EXPECT_NEAR(*summary.peak_p95_seconds, 0.0975, 1e-9);
    ASSERT_TRUE(summary.peak_p99_seconds.has_value());
    EXPECT_NEAR(*summary.peak_p99_seconds, 0.0995, 1e-9);
    EXPECT_EQ(summary.restarts, 0);
    EXPECT_EQ(summary.alerts_fired, std::vector<std::string>{kFastBurnAlert});
  }
  EXPECT_TRUE(ProcessGone(prometheus_pid, "prometheus")) << "prometheus pid " << prometheus_pid;
  EXPECT_TRUE(ProcessGone(alertmanager_pid, "alertmanager")) << "alertmanager pid " << alertmanager_pid;
  EXPECT_TRUE(fs::exists(fs::path(ArtifactsDir()) / "prometheus.log"));
  EXPECT_TRUE(fs::exists(fs::path(ArtifactsDir()) / "webhook-test.jsonl"));
}

TEST(AlertingStackIntegration, SeededMisrouteIsCaughtAtTheProductionReceiver) {
  FakeWorkService work;
  const WallTime run_start = WallClock::now();
  pid_t prometheus_pid = -1;
  pid_t alertmanager_pid = -1;
  {
    AlertingStack stack = AlertingStack::Start({.scrape_targets = {work.target()},
                                                .time_scale = kTimeScale,
                                                .misroute_test_alerts = true,
                                                .artifacts_dir = ArtifactsDir()});
    prometheus_pid = stack.prometheus_pid();
    alertmanager_pid = stack.alertmanager_pid();
    const auto reached_production = [&] {
      for (const WebhookEvent& event : stack.production_sink().Events()) {
        if (!event.payload) continue;
        for (const WebhookAlert& alert : event.payload->alerts) {
          if (alert.alertname() == kFastBurnAlert) return true;
        }
      }
      return false;
    };
    ASSERT_TRUE(WaitUntil(reached_production, seconds(90)))
        << "the misrouted alert never reached the production receiver";

    const ChainReport report = CheckChain(stack, run_start, WallClock::now(), kFastBurnAlert,
                                          /*expect_resolved=*/false);
    std::cout << report.Describe();
    EXPECT_FALSE(report.Passed());
    EXPECT_TRUE(report.fired);
    EXPECT_FALSE(report.routed_to_test_receiver);
    EXPECT_FALSE(report.incident_created);
    ASSERT_FALSE(report.production_clean());
    EXPECT_EQ(report.production_events[0].receiver, "production");
    EXPECT_EQ(report.production_events[0].status, "firing");
    EXPECT_EQ(report.production_events[0].alertnames, std::vector<std::string>{kFastBurnAlert});
    bool named = false;
    for (const std::string& problem : report.problems) {
      named = named || problem.find("production receiver 'production' got a firing notification "
                                    "for [AvailabilityErrorBudgetBurnFast]") != std::string::npos;
    }
    EXPECT_TRUE(named) << report.Describe();
    EXPECT_TRUE(stack.test_sink().RawEvents().empty());
    const std::vector<Incident> production = stack.production_sink().Incidents();
    ASSERT_EQ(production.size(), 1u);
    EXPECT_EQ(production[0].title, "AvailabilityErrorBudgetBurnFast");
    EXPECT_EQ(production[0].labels.at("source"), "load-test");
  }
  EXPECT_TRUE(ProcessGone(prometheus_pid, "prometheus")) << "prometheus pid " << prometheus_pid;
  EXPECT_TRUE(ProcessGone(alertmanager_pid, "alertmanager")) << "alertmanager pid " << alertmanager_pid;
}

TEST(AlertingStackIntegration, BrokenRulesFailStartWithPrometheusLogTail) {
  const fs::path rules = fs::temp_directory_path() /
                          ("aftershock-alerting-broken-rules-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(rules) << "groups:\n  - name: g\n    rules:\n      - alert: X\n"
                          "        expr: sum(rate(work_requests_total[5m])\n        for: 5m\n";
  try {
    AlertingStack::Start({.scrape_targets = {"127.0.0.1:9"}, .time_scale = kTimeScale,
                          .rules_path = rules.string()});
    ADD_FAILURE() << "Start accepted broken rules";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("prometheus (pid "), std::string::npos) << message;
    EXPECT_NE(message.find("log tail"), std::string::npos) << message;
  }
  fs::remove(rules);
}

TEST(AlertingStackStartup, RefusesATimeScaleTooSmallForTheScrapeInterval) {
  // 0.01: [5m] -> [3s], fewer than 4 one-second scrapes. Nothing may be started.
  try {
    AlertingStack::Start({.scrape_targets = {"127.0.0.1:9"}, .time_scale = 0.01});
    ADD_FAILURE() << "Start accepted time_scale 0.01";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("shortest rate window (3s)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(AlertingStack::Start({.scrape_targets = {}, .time_scale = 0.02}),
               std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::alerting
