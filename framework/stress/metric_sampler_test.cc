#include "framework/stress/metric_sampler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "framework/load/http_test_server.h"

namespace aftershock::stress {
namespace {

using std::chrono::milliseconds;
using load::HttpRequest;
using load::HttpTestServer;
using load::TestReply;

// Waits (bounded) until `selector` has at least `n` samples.
bool WaitForSamples(const MetricSampler& sampler, const std::string& selector, std::size_t n) {
  for (int i = 0; i < 200; ++i) {
    if (sampler.Series(selector).size() >= n) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return false;
}

TEST(MetricSamplerTest, PollsTheTargetAndKeepsATimeSeriesPerSelector) {
  std::atomic<int> scrapes{0};
  HttpTestServer server([&](const HttpRequest& r) {
    if (r.target != "/metrics") return TestReply{.status = 404, .body = ""};
    const int n = ++scrapes;
    return TestReply{.body = "# TYPE pool_in_use gauge\npool_in_use{pool=\"db\"} " + std::to_string(n) +
                             "\npool_size{pool=\"db\"} 10\npool_in_use{pool=\"other\"} 99\n"};
  });
  const RunClock clock = RunClock::StartNow();
  MetricSampler sampler({.target = server.address(),
                         .period = milliseconds(20),
                         .selectors = {"pool_in_use{pool=\"db\"}", "pool_size{pool=\"db\"}", "absent"}},
                        clock);
  ASSERT_TRUE(WaitForSamples(sampler, "pool_in_use{pool=\"db\"}", 4));
  sampler.Stop();
  const int scraped = scrapes.load();
  std::this_thread::sleep_for(milliseconds(60));
  EXPECT_EQ(scrapes.load(), scraped) << "no poll after Stop()";

  const std::vector<MetricSample> in_use = sampler.Series("pool_in_use{pool=\"db\"}");
  const std::vector<MetricSample> size = sampler.Series("pool_size{pool=\"db\"}");
  ASSERT_GE(in_use.size(), 4u);
  ASSERT_EQ(in_use.size(), size.size());
  for (std::size_t i = 1; i < in_use.size(); ++i) {
    EXPECT_GT(in_use[i].offset_ns, in_use[i - 1].offset_ns);
    EXPECT_EQ(in_use[i].value, in_use[i - 1].value + 1) << "the 'other' pool's 99 never leaks in";
    EXPECT_EQ(size[i].value, 10);
  }
  EXPECT_TRUE(sampler.Series("absent").empty());
  const MetricSamplerStats stats = sampler.stats();
  EXPECT_EQ(stats.polls, static_cast<std::uint64_t>(scraped));
  EXPECT_EQ(stats.failed_polls, 0u);
  EXPECT_EQ(stats.missing, stats.polls);  // "absent", once a poll
  const std::vector<MetricSample> ratio = RatioSeries(in_use, size);
  ASSERT_EQ(ratio.size(), in_use.size());
  EXPECT_DOUBLE_EQ(ratio[0].value, in_use[0].value / 10);
  EXPECT_THROW(sampler.Series("not_sampled"), std::invalid_argument);
}

TEST(MetricSamplerTest, AFailingEndpointAddsNoSampleAndSaysWhy) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{.status = 500, .body = "down"}; });
  MetricSampler sampler({.target = server.address(), .period = milliseconds(10), .selectors = {"up"}},
                        RunClock::StartNow());
  for (int i = 0; i < 200 && sampler.stats().failed_polls < 2; ++i) std::this_thread::sleep_for(milliseconds(10));
  sampler.Stop();
  const MetricSamplerStats stats = sampler.stats();
  EXPECT_GE(stats.failed_polls, 2u);
  EXPECT_NE(stats.last_error.find("answered 500"), std::string::npos) << stats.last_error;
  EXPECT_TRUE(sampler.Series("up").empty());
  const PollCoverage coverage = sampler.Coverage({"up"});
  EXPECT_EQ(coverage.polls, stats.polls);
  EXPECT_EQ(coverage.failed, stats.polls);
  EXPECT_DOUBLE_EQ(coverage.FailedRatio(), 1);
  EXPECT_NE(coverage.last_error.find("answered 500"), std::string::npos);
}

TEST(MetricSamplerTest, CoverageCountsThePollsOfAWindowThatGaveNoSampleOfTheAskedSelectors) {
  std::atomic<int> scrapes{0};
  // Every third scrape fails, every other one lacks pool_size.
  HttpTestServer server([&](const HttpRequest&) {
    const int n = ++scrapes;
    if (n % 3 == 0) return TestReply{.status = 503, .body = "busy"};
    return TestReply{.body = "pool_in_use 1\n" + std::string(n % 2 == 0 ? "" : "pool_size 10\n")};
  });
  MetricSampler sampler({.target = server.address(), .period = milliseconds(5), .selectors = {"pool_in_use", "pool_size"}},
                        RunClock::StartNow());
  for (int i = 0; i < 400 && sampler.stats().polls < 12; ++i) std::this_thread::sleep_for(milliseconds(5));
  sampler.Stop();
  const std::uint64_t polls = sampler.stats().polls;
  ASSERT_GE(polls, 12u);
  std::uint64_t without_in_use = 0, without_either = 0;
  for (std::uint64_t n = 1; n <= polls; ++n) {
    without_in_use += n % 3 == 0;
    without_either += n % 3 == 0 || n % 2 == 0;
  }
  EXPECT_EQ(sampler.Coverage({"pool_in_use"}).failed, without_in_use);
  EXPECT_EQ(sampler.Coverage({"pool_in_use", "pool_size"}).failed, without_either);
  EXPECT_EQ(sampler.Coverage({"pool_in_use", "pool_size"}).polls, polls);
  // A window before the first poll has none; one over everything has them all.
  EXPECT_EQ(sampler.Coverage({"pool_in_use"}, 0, 1).polls, 0u);
  EXPECT_EQ(sampler.Coverage({"pool_in_use"}, 0).polls, polls);
  EXPECT_THROW(sampler.Coverage({"not_sampled"}), std::invalid_argument);
}

TEST(MetricSamplerTest, TheSeriesIsBoundedAndDropsTheOldest) {
  std::atomic<int> scrapes{0};
  HttpTestServer server([&](const HttpRequest&) { return TestReply{.body = "up " + std::to_string(++scrapes) + "\n"}; });
  MetricSampler sampler({.target = server.address(), .period = milliseconds(5), .selectors = {"up"}, .max_samples = 2},
                        RunClock::StartNow());
  for (int i = 0; i < 200 && sampler.stats().polls < 5; ++i) std::this_thread::sleep_for(milliseconds(10));
  sampler.Stop();
  const std::vector<MetricSample> up = sampler.Series("up");
  ASSERT_EQ(up.size(), 2u);
  EXPECT_EQ(up[1].value, static_cast<double>(sampler.stats().polls));  // the newest kept
  EXPECT_EQ(sampler.stats().dropped_samples, sampler.stats().polls - 2);
}

TEST(MetricSamplerTest, PollingEndsByItselfAtMaxDuration) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{.body = "up 1\n"}; });
  MetricSampler sampler({.target = server.address(), .period = milliseconds(10), .selectors = {"up"},
                         .max_duration = milliseconds(50)},
                        RunClock::StartNow());
  for (int i = 0; i < 100 && !sampler.stats().expired; ++i) std::this_thread::sleep_for(milliseconds(10));
  const MetricSamplerStats stats = sampler.stats();
  EXPECT_TRUE(stats.expired);
  EXPECT_GE(stats.polls, 1u);
  EXPECT_LE(stats.polls, 6u);
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(sampler.stats().polls, stats.polls);
}

TEST(MetricSamplerTest, BadOptionsAreErrorsNamingTheOption) {
  const RunClock clock = RunClock::StartNow();
  auto message = [&](MetricSamplerOptions o) -> std::string {
    try {
      MetricSampler sampler(std::move(o), clock);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(message({.target = "10.0.0.1:9090", .selectors = {"up"}}).find("loopback"), std::string::npos);
  EXPECT_NE(message({.target = "127.0.0.1:9090", .period = milliseconds(0), .selectors = {"up"}}).find("period"),
            std::string::npos);
  EXPECT_NE(message({.target = "127.0.0.1:9090"}).find("no selectors"), std::string::npos);
  EXPECT_NE(message({.target = "127.0.0.1:9090", .selectors = {"up{"}}).find("'up{'"), std::string::npos);
  EXPECT_NE(message({.target = "127.0.0.1:9090", .selectors = {"up", "up"}}).find("twice"), std::string::npos);
  EXPECT_NE(message({.target = "127.0.0.1:9090", .selectors = {"up"}, .max_samples = 0}).find("max_samples"),
            std::string::npos);
}

TEST(MetricSamplerTest, RatioSeriesJoinsOnThePollAndSkipsAZeroSize) {
  const std::vector<MetricSample> in_use = {{1, 2}, {2, 4}, {3, 6}, {5, 1}};
  const std::vector<MetricSample> size = {{1, 10}, {3, 0}, {4, 10}, {5, 4}};
  const std::vector<MetricSample> ratio = RatioSeries(in_use, size);
  ASSERT_EQ(ratio.size(), 2u);
  EXPECT_EQ(ratio[0].offset_ns, 1);
  EXPECT_DOUBLE_EQ(ratio[0].value, 0.2);
  EXPECT_EQ(ratio[1].offset_ns, 5);
  EXPECT_DOUBLE_EQ(ratio[1].value, 0.25);
}

}  // namespace
}  // namespace aftershock::stress
