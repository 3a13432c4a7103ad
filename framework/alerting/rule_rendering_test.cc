#include "framework/alerting/rule_rendering.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "framework/alerting/prom_duration.h"
#include "framework/process/child_process.h"

namespace aftershock::alerting {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
namespace fs = std::filesystem;

std::string Manifest(const std::string& name) {
  std::ifstream in(std::string(AFTERSHOCK_SOURCE_DIR) + "/manifests/prometheus/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string ReplaceEvery(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

TEST(PromDuration, ParsesSingleAndCompoundUnits) {
  EXPECT_EQ(ParsePromDuration("5m"), milliseconds(300'000));
  EXPECT_EQ(ParsePromDuration("12h"), milliseconds(43'200'000));
  EXPECT_EQ(ParsePromDuration("1h30m"), milliseconds(5'400'000));
  EXPECT_EQ(ParsePromDuration("250ms"), milliseconds(250));
  EXPECT_EQ(ParsePromDuration("1d"), milliseconds(86'400'000));
  EXPECT_EQ(ParsePromDuration("0"), milliseconds(0));
}

TEST(PromDuration, RejectsBadText) {
  EXPECT_THROW(ParsePromDuration(""), std::invalid_argument);
  EXPECT_THROW(ParsePromDuration("5"), std::invalid_argument);
  EXPECT_THROW(ParsePromDuration("m5"), std::invalid_argument);
  EXPECT_THROW(ParsePromDuration("30m1h"), std::invalid_argument);  // units out of order
  EXPECT_THROW(ParsePromDuration("5x"), std::invalid_argument);
}

TEST(PromDuration, FormatsWithTheLargestExactUnit) {
  EXPECT_EQ(FormatPromDuration(seconds(15)), "15s");
  EXPECT_EQ(FormatPromDuration(seconds(90)), "90s");
  EXPECT_EQ(FormatPromDuration(std::chrono::minutes(36)), "36m");
  EXPECT_EQ(FormatPromDuration(std::chrono::hours(12)), "12h");
  EXPECT_EQ(FormatPromDuration(seconds(864)), "864s");
  EXPECT_EQ(FormatPromDuration(milliseconds(1500)), "1500ms");
  EXPECT_EQ(FormatPromDuration(milliseconds(0)), "0s");
  EXPECT_THROW(FormatPromDuration(milliseconds(-1)), std::invalid_argument);
}

TEST(RenderRules, ScalesWindowsAndForKeepsEverythingElse) {
  const std::string input =
      "groups:\n"
      "  - name: g\n"
      "    rules:\n"
      "      - alert: A\n"
      "        expr: sum(rate(x{code=~\"5..\"}[5m])) / sum(rate(x[30m])) > 0.01\n"
      "        for: 5m   # burn\n"
      "      - alert: B\n"
      "        expr: max_over_time(rate(x[5m])[1h:1m]) > 0.002\n"
      "        for: \"12h\"\n"
      "        annotations:\n"
      "          summary: over 5m [not a window]\n";
  const std::string expected =
      "groups:\n"
      "  - name: g\n"
      "    rules:\n"
      "      - alert: A\n"
      "        expr: sum(rate(x{code=~\"5..\"}[15s])) / sum(rate(x[90s])) > 0.01\n"
      "        for: 15s   # burn\n"
      "      - alert: B\n"
      "        expr: max_over_time(rate(x[15s])[3m:3s]) > 0.002\n"
      "        for: \"36m\"\n"
      "        annotations:\n"
      "          summary: over 5m [not a window]\n";
  EXPECT_EQ(RenderRules(input, 0.05), expected);
}

TEST(RenderRules, ScaleOneIsIdentityOnTheShippedRules) {
  const std::string shipped = Manifest("rules.yaml");
  ASSERT_FALSE(shipped.empty());
  EXPECT_EQ(RenderRules(shipped, 1.0), shipped);
}

TEST(RenderRules, ShippedRulesAtFivePercent) {
  const std::string shipped = Manifest("rules.yaml");
  std::string expected = shipped;
  expected = ReplaceEvery(expected, "[5m]", "[15s]");
  expected = ReplaceEvery(expected, "[30m]", "[90s]");
  expected = ReplaceEvery(expected, "for: 5m\n", "for: 15s\n");
  expected = ReplaceEvery(expected, "for: 12h\n", "for: 36m\n");
  expected = ReplaceEvery(expected, "for: 15m\n", "for: 45s\n");
  ASSERT_NE(expected, shipped);
  EXPECT_EQ(RenderRules(shipped, 0.05), expected);
}

TEST(RenderRules, ShippedRulesAtTwoPercentKeepThresholds) {
  const std::string rendered = RenderRules(Manifest("rules.yaml"), 0.02);
  EXPECT_NE(rendered.find("code=~\"5..\"}[6s]))"), std::string::npos);
  EXPECT_NE(rendered.find("code=~\"5..\"}[36s]))"), std::string::npos);
  EXPECT_NE(rendered.find("for: 6s\n"), std::string::npos);
  EXPECT_NE(rendered.find("for: 864s\n"), std::string::npos);
  EXPECT_NE(rendered.find("for: 18s\n"), std::string::npos);
  EXPECT_NE(rendered.find(") > 0.01\n"), std::string::npos);
  EXPECT_NE(rendered.find(") > 0.002\n"), std::string::npos);
  EXPECT_NE(rendered.find(") > 0.3\n"), std::string::npos);
  EXPECT_EQ(rendered.find("[5m]"), std::string::npos);
  EXPECT_EQ(ShortestRangeWindow(rendered), seconds(6));
}

TEST(RenderRules, RejectsBadScalesAndValues) {
  EXPECT_THROW(RenderRules("expr: rate(x[5m])\n", 0.0), std::invalid_argument);
  EXPECT_THROW(RenderRules("expr: rate(x[5m])\n", -1.0), std::invalid_argument);
  EXPECT_THROW(RenderRules("expr: rate(x[1ms])\n", 0.1), std::invalid_argument);  // rounds to 0
  EXPECT_THROW(RenderRules("    for: soon\n", 0.5), std::invalid_argument);
}

TEST(ChooseIntervals, QuarterOfTheShortestWindowInWholeSeconds) {
  EXPECT_EQ(ChooseIntervals(seconds(6)).scrape, seconds(1));
  EXPECT_EQ(ChooseIntervals(seconds(6)).evaluation, seconds(1));
  EXPECT_EQ(ChooseIntervals(seconds(15)).scrape, seconds(3));
  EXPECT_EQ(ChooseIntervals(std::chrono::minutes(5)).scrape, seconds(15));  // unscaled default
  EXPECT_EQ(ChooseIntervals(seconds(2)).scrape, seconds(1));                // floor
}

TEST(CheckWindows, RefusesFewerThanFourScrapesPerWindow) {
  EXPECT_NO_THROW(CheckWindows(seconds(6), ChooseIntervals(seconds(6))));
  EXPECT_NO_THROW(CheckWindows(seconds(4), ChooseIntervals(seconds(4))));
  // time_scale 0.01 turns [5m] into [3s]: at a 1 s scrape only 3 samples.
  EXPECT_THROW(CheckWindows(seconds(3), ChooseIntervals(seconds(3))), std::invalid_argument);
}

TEST(RenderTemplate, FillsAndRefusesUnknownPlaceholders) {
  EXPECT_EQ(RenderTemplate("a: ${X}\nb: ${Y}${X}\n", {{"X", "1"}, {"Y", "2"}}), "a: 1\nb: 21\n");
  EXPECT_THROW(RenderTemplate("a: ${MISSING}\n", {{"X", "1"}}), std::invalid_argument);
  EXPECT_EQ(YamlQuote("it's"), "'it''s'");
}

TEST(RenderPrometheusConfig, FillsTheShippedTemplate) {
  const std::string rendered = RenderPrometheusConfig(
      Manifest("prometheus.yaml"),
      {.scrape_targets = {"127.0.0.1:8001", "127.0.0.1:8002"},
       .rule_file = "/tmp/x/rules.yaml",
       .alertmanager_address = "127.0.0.1:9093",
       .intervals = {seconds(1), seconds(1)}});
  const YAML::Node config = YAML::Load(rendered);
  EXPECT_EQ(config["global"]["scrape_interval"].as<std::string>(), "1s");
  EXPECT_EQ(config["global"]["evaluation_interval"].as<std::string>(), "1s");
  EXPECT_EQ(config["rule_files"][0].as<std::string>(), "/tmp/x/rules.yaml");
  EXPECT_EQ(config["alerting"]["alertmanagers"][0]["static_configs"][0]["targets"][0].as<std::string>(),
            "127.0.0.1:9093");
  const YAML::Node job = config["scrape_configs"][0];
  EXPECT_EQ(job["job_name"].as<std::string>(), "work");
  ASSERT_EQ(job["static_configs"][0]["targets"].size(), 2u);
  EXPECT_EQ(job["static_configs"][0]["targets"][1].as<std::string>(), "127.0.0.1:8002");
}

TEST(RenderAlertmanagerConfig, UnscaledKeepsTheShippedRouting) {
  const std::string rendered = RenderAlertmanagerConfig(
      Manifest("alertmanager.yaml"),
      {.test_webhook_url = "http://127.0.0.1:1/webhook",
       .production_webhook_url = "http://127.0.0.1:2/webhook"});
  const YAML::Node config = YAML::Load(rendered);
  EXPECT_EQ(config["route"]["receiver"].as<std::string>(), "production");
  EXPECT_EQ(config["route"]["group_wait"].as<std::string>(), "10s");
  EXPECT_EQ(config["route"]["routes"][0]["matchers"][0].as<std::string>(), "source=\"load-test\"");
  EXPECT_EQ(config["route"]["routes"][0]["receiver"].as<std::string>(), "test");
  EXPECT_EQ(config["receivers"][0]["name"].as<std::string>(), "production");
  EXPECT_EQ(config["receivers"][0]["webhook_configs"][0]["url"].as<std::string>(),
            "http://127.0.0.1:2/webhook");
  EXPECT_TRUE(config["receivers"][0]["webhook_configs"][0]["send_resolved"].as<bool>());
  EXPECT_EQ(config["receivers"][1]["name"].as<std::string>(), "test");
  EXPECT_EQ(config["receivers"][1]["webhook_configs"][0]["url"].as<std::string>(),
            "http://127.0.0.1:1/webhook");
  EXPECT_TRUE(config["receivers"][1]["webhook_configs"][0]["send_resolved"].as<bool>());
}

TEST(RenderAlertmanagerConfig, ScaledTimingsHaveAOneSecondFloor) {
  const YAML::Node config = YAML::Load(RenderAlertmanagerConfig(
      Manifest("alertmanager.yaml"),
      {.test_webhook_url = "http://t", .production_webhook_url = "http://p", .time_scale = 0.02}));
  EXPECT_EQ(config["route"]["group_wait"].as<std::string>(), "1s");      // 200ms -> 1s
  EXPECT_EQ(config["route"]["group_interval"].as<std::string>(), "1s");  // 600ms -> 1s
  EXPECT_EQ(config["route"]["repeat_interval"].as<std::string>(), "72s");
  EXPECT_EQ(config["route"]["routes"][0]["receiver"].as<std::string>(), "test");
}

TEST(RenderAlertmanagerConfig, SeededMisrouteSendsLoadTestAlertsToProduction) {
  const YAML::Node config = YAML::Load(RenderAlertmanagerConfig(
      Manifest("alertmanager.yaml"), {.test_webhook_url = "http://t",
                                      .production_webhook_url = "http://p",
                                      .misroute_test_alerts = true}));
  EXPECT_EQ(config["route"]["routes"][0]["receiver"].as<std::string>(), "production");
  EXPECT_THROW(RenderAlertmanagerConfig("route:\n  receiver: production\n",
                                        {.misroute_test_alerts = true}),
               std::invalid_argument);
}

// The rendered files must be what the real tools accept (promtool / amtool from Debian).
class ToolCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "alerting-toolcheck-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  // Runs a tool to completion; returns its exit code and fills `log`.
  int Run(const std::string& program, std::vector<std::string> args, std::string* log) {
    process::ChildOptions options;
    options.program = program;
    options.args = std::move(args);
    options.log_path = (dir_ / "tool.log").string();
    process::ChildProcess child = process::ChildProcess::Start(options);
    const int code = child.Wait(std::chrono::seconds(30));
    std::ifstream in(options.log_path);
    std::ostringstream text;
    text << in.rdbuf();
    *log = text.str();
    return code;
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  fs::path dir_;
};

TEST_F(ToolCheck, PromtoolAcceptsShippedAndScaledRules) {
  if (!fs::exists("/usr/bin/promtool")) GTEST_SKIP() << "promtool not installed";
  Write("shipped.yaml", Manifest("rules.yaml"));
  Write("scaled.yaml", RenderRules(Manifest("rules.yaml"), 0.02));
  std::string log;
  EXPECT_EQ(Run("/usr/bin/promtool", {"check", "rules", (dir_ / "shipped.yaml").string(),
                                      (dir_ / "scaled.yaml").string()},
                &log),
            0)
      << log;
  EXPECT_NE(log.find("SUCCESS: 3 rules found"), std::string::npos) << log;
}

TEST_F(ToolCheck, PromtoolAcceptsRenderedPrometheusConfig) {
  if (!fs::exists("/usr/bin/promtool")) GTEST_SKIP() << "promtool not installed";
  Write("rules.yaml", RenderRules(Manifest("rules.yaml"), 0.02));
  Write("prometheus.yaml",
        RenderPrometheusConfig(Manifest("prometheus.yaml"),
                               {.scrape_targets = {"127.0.0.1:8001"},
                                .rule_file = (dir_ / "rules.yaml").string(),
                                .alertmanager_address = "127.0.0.1:9093",
                                .intervals = {seconds(1), seconds(1)}}));
  std::string log;
  EXPECT_EQ(Run("/usr/bin/promtool", {"check", "config", (dir_ / "prometheus.yaml").string()}, &log), 0)
      << log;
}

TEST_F(ToolCheck, AmtoolAcceptsRenderedAlertmanagerConfigs) {
  if (!fs::exists("/usr/bin/amtool")) GTEST_SKIP() << "amtool not installed";
  for (const bool misroute : {false, true}) {
    Write("alertmanager.yaml",
          RenderAlertmanagerConfig(Manifest("alertmanager.yaml"),
                                   {.test_webhook_url = "http://127.0.0.1:1/webhook",
                                    .production_webhook_url = "http://127.0.0.1:2/webhook",
                                    .time_scale = 0.02,
                                    .misroute_test_alerts = misroute}));
    std::string log;
    EXPECT_EQ(Run("/usr/bin/amtool", {"check-config", (dir_ / "alertmanager.yaml").string()}, &log), 0)
        << "misroute=" << misroute << "\n" << log;
  }
}

}  // namespace
}  // namespace aftershock::alerting
