#include "framework/request_proxy/request_rule_fault.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <memory>
#include <thread>

#include "framework/chaos/chaos_scheduler.h"
#include "framework/chaos/chaos_timeline.h"
#include "framework/load/http_test_server.h"
#include "framework/net/http_exchange.h"
#include "framework/process/scratch_dir.h"
#include "framework/request_proxy/control_server.h"
#include "framework/request_proxy/internal/test_http_client.h"
#include "framework/request_proxy/request_proxy_process.h"

namespace aftershock::request_proxy {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

RequestRule SearchRule(std::chrono::milliseconds ttl = 0ms) {
  return {.id = "search-503", .route = "/search", .share = 1.0, .action = StatusAction{503}, .ttl = ttl};
}

TEST(RequestRuleFaultTest, AppliesConfirmsRevertsAndConfirmsNothingLeft) {
  auto rules = std::make_shared<RuleTable>(RuleTable::SeededRng(1));
  ControlServer control(rules, {});
  RequestRuleFault fault("search-503", RequestProxyClient("127.0.0.1", control.port()), SearchRule(),
                         {.confirm_fired = true});
  EXPECT_EQ(fault.detail(), "http /search share 1: status 503");
  fault.Apply();
  EXPECT_EQ(rules->size(), 1u);
  // Not fired yet: confirm_fired waits, and says so when the deadline passes.
  EXPECT_EQ(fault.ConfirmApplied(Clock::now() + 150ms).status, chaos::Confirmation::Status::kNotConfirmed);
  rules->Match(Protocol::kHttp, "/search");
  const auto applied = fault.ConfirmApplied(Clock::now() + 2s);
  EXPECT_EQ(applied.status, chaos::Confirmation::Status::kConfirmed) << applied.detail;
  EXPECT_THAT(applied.detail, HasSubstr("fired 1"));
  fault.Revert();
  EXPECT_EQ(rules->size(), 0u);
  EXPECT_EQ(fault.ConfirmReverted(Clock::now() + 2s).status, chaos::Confirmation::Status::kConfirmed);
  // A revert after a failed or repeated apply is harmless.
  EXPECT_NO_THROW(fault.Revert());
}

TEST(RequestRuleFaultTest, RenewsItsLeaseWhileAppliedAndTheLeaseDropsItAfterwards) {
  auto rules = std::make_shared<RuleTable>(RuleTable::SeededRng(1));
  ControlServer control(rules, {});
  RequestRuleFault fault("f", RequestProxyClient("127.0.0.1", control.port()), SearchRule(300ms));
  fault.Apply();
  std::this_thread::sleep_for(1s);  // over three leases: only renewals keep it
  EXPECT_EQ(rules->size(), 1u);
  fault.Revert();
  EXPECT_EQ(rules->size(), 0u);
  // A rule set without anyone renewing it (a killed test) is dropped after its lease.
  RequestProxyClient("127.0.0.1", control.port()).SetRule(SearchRule(200ms));
  EXPECT_EQ(rules->size(), 1u);
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(rules->size(), 0u);
  // ... and the proxy counts it, where a scenario reads it (GET /leases): fault-lease-held.
  const LeaseExpiries e = RequestProxyClient("127.0.0.1", control.port()).Expiries();
  EXPECT_EQ(e.count, 1u);
  EXPECT_THAT(e.last, HasSubstr("rule 'search-503' on /search expired: its 200 ms lease was not renewed"));
}

TEST(RequestRuleFaultTest, SchedulerStoppedEarlyLeavesNoRule) {
  auto rules = std::make_shared<RuleTable>(RuleTable::SeededRng(1));
  ControlServer control(rules, {});
  RequestProxyClient client("127.0.0.1", control.port());
  auto fault = std::make_shared<RequestRuleFault>("search-503", client, SearchRule(5s));
  RunClock clock = RunClock::StartNow();
  chaos::ChaosTimeline timeline(clock);
  {
    chaos::ChaosScheduler scheduler(clock, timeline);
    scheduler.Start({{.at = 0ms, .duration = 60s, .fault = fault, .confirm_timeout = 2s}});
    for (int i = 0; i < 200 && rules->size() == 0; ++i) std::this_thread::sleep_for(10ms);
    ASSERT_EQ(rules->size(), 1u);
    scheduler.Abort();  // what SIGINT does to a run
    EXPECT_TRUE(scheduler.errors().empty());
  }
  EXPECT_EQ(rules->size(), 0u);
  EXPECT_TRUE(client.ListRules().empty());
}

TEST(RequestProxyProgramTest, ServesRulesAndExitsCleanlyOnSigterm) {
  load::HttpTestServer upstream([](const load::HttpRequest&) { return load::TestReply{.body = "hello"}; });
  process::ScratchDir scratch = process::ScratchDir::Create("request-proxy-test");
  RequestProxyProcess proxy = RequestProxyProcess::Start(
      {.program = AFTERSHOCK_REQUEST_PROXY_PATH, .http_upstream = upstream.address(), .scratch_dir = scratch.path(),
       .seed = 7});
  ASSERT_GT(proxy.http_port(), 0);
  EXPECT_EQ(proxy.grpc_port(), 0);
  internal::TestHttpClient http(proxy.http_port());
  EXPECT_EQ(http.Get("/search").body(), "hello");
  RequestProxyClient client = proxy.client();
  client.SetRule(SearchRule());
  EXPECT_EQ(http.Get("/search").result_int(), 503u);
  const int control_port = proxy.control_port();
  EXPECT_EQ(proxy.Stop(), 0);  // SIGTERM: clears the rules, stops, exits 0
  EXPECT_FALSE(net::HttpExchange({.port = control_port, .target = "/rules"}, 500ms).answered());
  // The same scratch folder again (a scenario's kept artifacts): the last run's port file is not
  // taken for the new proxy's.
  RequestProxyProcess again = RequestProxyProcess::Start(
      {.program = AFTERSHOCK_REQUEST_PROXY_PATH, .http_upstream = upstream.address(), .scratch_dir = scratch.path(),
       .seed = 7});
  EXPECT_EQ(internal::TestHttpClient(again.http_port()).Get("/search").body(), "hello");
  EXPECT_EQ(again.Stop(), 0);
}

TEST(RequestProxyProgramTest, BadFlagsExitWithAnError) {
  process::ScratchDir scratch = process::ScratchDir::Create("request-proxy-test");
  process::ChildOptions options;
  options.program = AFTERSHOCK_REQUEST_PROXY_PATH;
  options.args = {"--control-listen=127.0.0.1:0", "--http-listen=127.0.0.1:0", "--http-upstream=10.1.1.1:80"};
  options.log_path = scratch.path() + "/log";
  process::ChildProcess child = process::ChildProcess::Start(options);
  EXPECT_EQ(child.Wait(5s), 1);
  options.args = {"--http-listen=127.0.0.1:0"};
  process::ChildProcess second = process::ChildProcess::Start(options);
  EXPECT_EQ(second.Wait(5s), 2);
}

}  // namespace
}  // namespace aftershock::request_proxy
