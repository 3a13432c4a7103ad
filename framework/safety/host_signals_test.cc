// Host signals: the scrape configuration (unit), and a real Prometheus scraping a real node
// exporter on loopback, an envelope reading a trivially true and a false PromQL condition from it
// (integration, Debian prometheus and prometheus-node-exporter; well under 30 s).
#include "framework/safety/host_signals.h"

#include <signal.h>

#include <stdexcept>
#include <thread>

#include "framework/alerting/prometheus_server.h"
#include "framework/safety/abort_envelope.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::safety {
namespace {

using ::testing::HasSubstr;
using std::chrono::milliseconds;

TEST(PrometheusServerConfig, RendersEveryJobAndRefusesWhatIsNotLoopback) {
  const std::string yaml = alerting::RenderScrapeConfig(
      {.jobs = {{"node", {"127.0.0.1:9100"}}, {"gateway", {"127.0.0.1:8080", "127.0.0.2:8081"}}},
       .scrape_interval = milliseconds(500)});
  EXPECT_THAT(yaml, HasSubstr("scrape_interval: 500ms"));
  EXPECT_THAT(yaml, HasSubstr("- job_name: gateway\n    metrics_path: /metrics\n    static_configs:\n"
                              "      - targets: [\"127.0.0.1:8080\", \"127.0.0.2:8081\"]\n"));
  EXPECT_THAT(yaml, HasSubstr("- job_name: node\n"));
  EXPECT_THROW(alerting::RenderScrapeConfig({.jobs = {{"far", {"10.0.0.1:80"}}}}), std::invalid_argument);
  EXPECT_THROW(alerting::RenderScrapeConfig({.jobs = {}}), std::invalid_argument);
  EXPECT_THROW(alerting::RenderScrapeConfig({.jobs = {{"bad job", {"127.0.0.1:1"}}}}), std::invalid_argument);
}

TEST(HostSignalsOptions, BadOptionsAreRefusedBeforeAnythingStarts) {
  EXPECT_THROW(HostSignals::Start({.collectors = {}}), std::invalid_argument);
  EXPECT_THROW(HostSignals::Start({.collectors = {"cpu;rm"}}), std::invalid_argument);
  EXPECT_THROW(HostSignals::Start({.jobs = {{"node", {"127.0.0.1:1"}}}}), std::invalid_argument);
}

bool Alive(pid_t pid) { return pid > 0 && ::kill(pid, 0) == 0; }

TEST(HostSignalsIntegration, ATrueConditionBreachesAFalseOneNeverDoes) {
  pid_t prometheus_pid = -1, node_pid = -1;
  {
    HostSignals host = HostSignals::Start({.scrape_interval = milliseconds(500)});
    prometheus_pid = host.prometheus_pid();
    node_pid = host.node_exporter_pid();
    ASSERT_TRUE(Alive(prometheus_pid));
    ASSERT_TRUE(Alive(node_pid));
    const ConditionRule always{.name = "has-memory", .comparator = Comparator::kAbove, .threshold = 0};
    const ConditionRule never{.name = "disk-below-zero", .comparator = Comparator::kBelow, .threshold = 0};
    const ConditionRule cpu{.name = "cpu-over-101", .comparator = Comparator::kAbove, .threshold = 101};
    AbortEnvelope envelope(
        {PromqlCondition(always, "node_memory_MemTotal_bytes{job=\"node\"}", host.client()),
         PromqlCondition(never,
                         "node_filesystem_avail_bytes{job=\"node\"} / node_filesystem_size_bytes{job=\"node\"}",
                         host.client()),
         PromqlCondition(cpu, "100 * (1 - avg(rate(node_cpu_seconds_total{job=\"node\",mode=\"idle\"}[2s])))",
                         host.client())},
        {.interval = milliseconds(200)});
    for (int i = 0; i < 100 && !envelope.Breached(); ++i) std::this_thread::sleep_for(milliseconds(50));
    ASSERT_TRUE(envelope.Breached());
    EXPECT_EQ(envelope.FirstBreach()->condition, "has-memory");
    EXPECT_THAT(envelope.FirstBreach()->reason, HasSubstr("has-memory: node_memory_MemTotal_bytes{job=\"node\"} = "));
    // Let the other two be read a few times: they see real values and never breach.
    std::this_thread::sleep_for(milliseconds(1200));
    for (const ConditionStatus& s : envelope.statuses()) {
      EXPECT_GE(s.readings, 3u) << s.name;
      if (s.name == "has-memory") continue;
      EXPECT_TRUE(s.last_value.has_value()) << s.name << ": " << s.last_error;
      EXPECT_FALSE(s.holding) << s.name;
    }
    std::printf("PromQL readings: ");
    for (const ConditionStatus& s : envelope.statuses()) {
      std::printf("%s=%g (%llu readings, %llu failed) ", s.name.c_str(), s.last_value.value_or(-1),
                  static_cast<unsigned long long>(s.readings), static_cast<unsigned long long>(s.failures));
    }
    std::printf("\n");
    EXPECT_EQ(envelope.first_breach()->condition, "has-memory");
  }
  // Everything it started is gone.
  for (int i = 0; i < 50 && (Alive(prometheus_pid) || Alive(node_pid)); ++i) std::this_thread::sleep_for(milliseconds(100));
  EXPECT_FALSE(Alive(prometheus_pid));
  EXPECT_FALSE(Alive(node_pid));
}

}  // namespace
}  // namespace aftershock::safety
