#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "framework/chaos/chaos_scheduler.h"
#include "framework/chaos/chaos_timeline.h"
#include "framework/net/http_exchange.h"
#include "framework/process/child_process.h"
#include "framework/load/http_client.h"
#include "framework/load/http_test_server.h"
#include "framework/request_proxy/control_api.h"
#include "framework/request_proxy/http_fault_proxy.h"
#include "framework/request_proxy/request_proxy_process.h"
#include "framework/request_proxy/request_rule.h"
#include "framework/request_proxy/request_rule_fault.h"

namespace aftershock::request_proxy {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace asio = boost::asio;

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RequestRuleTest, ValidationNamesTheField) {
  RequestRule ok{.id = "r1", .route = "/meta", .share = 0.5, .action = RuleAction::kStatus, .status = 503};
  EXPECT_NO_THROW(ValidateRule(ok));
  auto bad = [&](auto change) {
    RequestRule r = ok;
    change(r);
    return ErrorOf([&] { ValidateRule(r); });
  };
  EXPECT_THAT(bad([](RequestRule& r) { r.share = 0; }), HasSubstr("rule 'r1': 'share' must be in (0,1], got 0"));
  EXPECT_THAT(bad([](RequestRule& r) { r.share = 1.5; }), HasSubstr("'share' must be in (0,1], got 1.5"));
  EXPECT_THAT(bad([](RequestRule& r) { r.status = 99; }), HasSubstr("'status' must be an HTTP status 100..599, got 99"));
  EXPECT_THAT(bad([](RequestRule& r) { r.route = "meta"; }), HasSubstr("'route' must be a path prefix starting with '/'"));
  EXPECT_THAT(bad([](RequestRule& r) { r.id = "a b"; }), HasSubstr("'id' must be 1..64 of [A-Za-z0-9_.-]"));
  EXPECT_THAT(bad([](RequestRule& r) { r.action = RuleAction::kDelayResponse; }), HasSubstr("'delay_ms' must be 1..600000, got 0"));
}

TEST(RequestRuleTest, JsonRoundTripAndStrictKeys) {
  const RequestRule r{.id = "slow", .route = "/meta", .share = 0.25, .action = RuleAction::kDelayResponse,
                      .delay = 6000ms, .ttl = 30s};
  EXPECT_EQ(RuleFromJson(RuleToJson(r)), r);
  EXPECT_EQ(RuleToJson(r), R"({"action":"delay_response","delay_ms":6000,"id":"slow","route":"/meta","share":0.25,"ttl_ms":30000})");
  EXPECT_THAT(ErrorOf([] { RuleFromJson(R"({"id":"x","action":"status","status":503,"colour":1})"); }),
              HasSubstr("rule 'x': key 'colour' is not a field of a status rule"));
  EXPECT_THAT(ErrorOf([] { RuleFromJson(R"({"id":"x","action":"status","delay_ms":5})"); }),
              HasSubstr("key 'delay_ms' is not a field of a status rule"));
  EXPECT_THAT(ErrorOf([] { RuleFromJson(R"({"id":"x","action":"truncate_body"})"); }),
              HasSubstr("a truncate_body rule needs 'keep_bytes'"));
  EXPECT_THAT(ErrorOf([] { RuleFromJson(R"({"id":"x","action":"explode","status":1})"); }), HasSubstr("unknown action 'explode'"));
  EXPECT_THAT(ErrorOf([] { RuleFromJson(R"({"action":"status","status":503})"); }), HasSubstr("missing 'id'"));
  EXPECT_THAT(ErrorOf([] { RuleFromJson(R"({"id":"x","action":"status","status":"503"})"); }),
              HasSubstr("'status' must be an integer"));
  EXPECT_THAT(ErrorOf([] { RuleFromJson("{nope"); }), HasSubstr("rule: not JSON"));
}

TEST(RuleTableTest, FirstMatchingRuleByIdDecidesAndCountersCount) {
  RuleTable t(1);
  t.Set({.id = "b-all", .route = "/", .action = RuleAction::kStatus, .status = 500});
  t.Set({.id = "a-meta", .route = "/meta", .action = RuleAction::kStatus, .status = 503});
  EXPECT_EQ(t.Match("/meta?ids=1")->rule.id, "a-meta");
  EXPECT_EQ(t.Match("/other")->rule.id, "b-all");
  const auto list = t.List();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].matched, 1u);
  EXPECT_EQ(list[0].fired, 1u);
  EXPECT_TRUE(t.Clear("b-all"));
  EXPECT_FALSE(t.Clear("b-all"));
  EXPECT_EQ(t.Match("/other"), std::nullopt);
  t.ClearAll();
  EXPECT_TRUE(t.List().empty());
}

TEST(RuleTableTest, ALeaseThatRunsOutDropsTheRuleAndSettingItAgainRenewsIt) {
  RuleTable t(1);
  const RequestRule r{.id = "leased", .route = "/", .action = RuleAction::kStatus, .status = 503, .ttl = 150ms};
  t.Set(r);
  std::this_thread::sleep_for(100ms);
  t.Set(r);  // renewed, counters kept
  ASSERT_TRUE(t.Match("/x"));
  std::this_thread::sleep_for(100ms);
  ASSERT_EQ(t.List().size(), 1u);
  EXPECT_EQ(t.List()[0].fired, 1u);
  std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(t.List().empty());
  EXPECT_EQ(t.Match("/x"), std::nullopt);
}

// A keep-alive client of its own: the proxy's keep-alive is part of what is tested.
class KeepAliveClient {
 public:
  explicit KeepAliveClient(int port) : stream_(ioc_) {
    stream_.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
  }
  http::response<http::string_body> Get(const std::string& target) {
    http::request<http::empty_body> req{http::verb::get, target, 11};
    req.set(http::field::host, "127.0.0.1");
    stream_.expires_after(30s);
    http::write(stream_, req);
    http::response<http::string_body> res;
    http::read(stream_, buffer_, res);
    return res;
  }

 private:
  asio::io_context ioc_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
};

struct ProxyFixture {
  load::HttpTestServer upstream{[](const load::HttpRequest& r) {
    return load::TestReply{.status = 200, .body = "upstream:" + r.target};
  }};
  std::shared_ptr<RuleTable> rules = std::make_shared<RuleTable>(2026);
  HttpFaultProxy proxy{{.upstream = upstream.address()}, rules};
};

TEST(HttpFaultProxyTest, ForwardsUntouchedWithoutRules) {
  ProxyFixture f;
  KeepAliveClient client(f.proxy.port());
  for (int i = 0; i < 20; ++i) {
    const auto res = client.Get("/meta?ids=" + std::to_string(i));
    EXPECT_EQ(res.result_int(), 200u);
    EXPECT_EQ(res.body(), "upstream:/meta?ids=" + std::to_string(i));
    EXPECT_EQ(res.count("X-Aftershock-Fault"), 0u);
  }
  EXPECT_EQ(f.upstream.accepted_connections(), 1);  // keep-alive on the upstream side too
}

TEST(HttpFaultProxyTest, StatusInjectionHitsItsShareWithinTwoPointsOverTenThousandRequests) {
  ProxyFixture f;
  f.rules->Set({.id = "dead", .route = "/meta", .share = 0.3, .action = RuleAction::kStatus, .status = 503});
  KeepAliveClient client(f.proxy.port());
  constexpr int kRequests = 10'000;
  int injected = 0, forwarded = 0, other = 0;
  for (int i = 0; i < kRequests; ++i) {
    const auto res = client.Get("/meta?ids=" + std::to_string(i));
    if (res.result_int() == 503 && res["X-Aftershock-Fault"] == "dead") ++injected;
    else if (res.result_int() == 200 && res.body().rfind("upstream:", 0) == 0) ++forwarded;
    else ++other;
  }
  EXPECT_EQ(other, 0);
  EXPECT_EQ(injected + forwarded, kRequests);
  EXPECT_NEAR(static_cast<double>(injected) / kRequests, 0.3, 0.02) << injected << " injected";
  EXPECT_EQ(f.upstream.requests(), forwarded);  // an injected status never reaches the upstream
  // Other routes are untouched.
  EXPECT_EQ(client.Get("/healthz").result_int(), 200u);
}

std::chrono::milliseconds MedianOf(std::vector<std::chrono::milliseconds> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(HttpFaultProxyTest, DelaysAreWithinFiveMillisecondsOfTheRule) {
  ProxyFixture f;
  KeepAliveClient client(f.proxy.port());
  auto measure = [&](const std::string& target) {
    std::vector<std::chrono::milliseconds> took;
    for (int i = 0; i < 15; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const auto res = client.Get(target);
      took.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start));
      EXPECT_EQ(res.result_int(), 200u);
    }
    return MedianOf(took);
  };
  const auto base = measure("/base");
  f.rules->Set({.id = "req", .route = "/req", .action = RuleAction::kDelayRequest, .delay = 80ms});
  f.rules->Set({.id = "res", .route = "/res", .action = RuleAction::kDelayResponse, .delay = 120ms});
  const auto req = measure("/req");
  const auto res = measure("/res");
  EXPECT_LE(std::chrono::abs(req - base - 80ms), 5ms) << req.count() << " ms, base " << base.count();
  EXPECT_LE(std::chrono::abs(res - base - 120ms), 5ms) << res.count() << " ms, base " << base.count();
}

TEST(HttpFaultProxyTest, TruncateKeepsNBytesWithAValidContentLength) {
  ProxyFixture f;
  f.rules->Set({.id = "cut", .route = "/meta", .action = RuleAction::kTruncateBody, .keep_bytes = 5});
  KeepAliveClient client(f.proxy.port());
  const auto res = client.Get("/meta?ids=1,2,3");
  EXPECT_EQ(res.result_int(), 200u);
  EXPECT_EQ(res.body(), "upstr");
  EXPECT_EQ(res[http::field::content_length], "5");
  EXPECT_EQ(res["X-Aftershock-Fault"], "cut");
  EXPECT_EQ(client.Get("/meta?ids=4").body(), "upstr");  // the connection survives a cut body
}

TEST(HttpFaultProxyTest, ADeadUpstreamIsA502NamingTheError) {
  auto rules = std::make_shared<RuleTable>(1);
  int dead_port = 0;
  {
    load::HttpTestServer gone([](const load::HttpRequest&) { return load::TestReply{}; });
    dead_port = gone.port();
  }
  HttpFaultProxy proxy({.upstream = "127.0.0.1:" + std::to_string(dead_port)}, rules);
  const auto r = load::HttpFetch("127.0.0.1:" + std::to_string(proxy.port()), {.target = "/x"}, 5s);
  EXPECT_EQ(r.status, 502);
  EXPECT_THAT(r.body, HasSubstr("upstream: connect:"));
  EXPECT_EQ(proxy.stats().upstream_errors, 1u);
}

TEST(HttpFaultProxyTest, RefusesANonLoopbackUpstream) {
  auto rules = std::make_shared<RuleTable>(1);
  EXPECT_THAT(ErrorOf([&] { HttpFaultProxy p({.upstream = "10.0.0.1:80"}, rules); }), HasSubstr("is not a loopback address"));
}

TEST(ControlApiTest, SetListClearOverHttp) {
  auto rules = std::make_shared<RuleTable>(1);
  ControlServer control("127.0.0.1:0", rules);
  RequestProxyClient client("127.0.0.1:" + std::to_string(control.port()));
  client.SetRule({.id = "dead", .route = "/meta", .action = RuleAction::kStatus, .status = 503});
  ASSERT_EQ(client.ListRules().size(), 1u);
  EXPECT_EQ(client.ListRules()[0].rule.status, 503);
  ASSERT_TRUE(rules->Match("/meta"));
  EXPECT_EQ(client.ListRules()[0].fired, 1u);
  EXPECT_TRUE(client.ClearRule("dead"));
  EXPECT_FALSE(client.ClearRule("dead"));
  client.SetRule({.id = "a", .route = "/", .action = RuleAction::kStatus, .status = 500});
  client.ClearAll();
  EXPECT_TRUE(client.ListRules().empty());
  // A bad rule on the wire is a 400 naming the field.
  const auto r = net::HttpExchange({.method = "PUT", .port = control.port(), .target = "/rules/x",
                                    .body = R"({"id":"x","action":"status","status":42})"}, 2s);
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("'status' must be an HTTP status 100..599, got 42"));
}

TEST(RequestRuleFaultTest, AppliesConfirmsRevertsAndRenewsItsLease) {
  ProxyFixture f;
  ControlServer control("127.0.0.1:0", f.rules);
  RequestProxyClient client("127.0.0.1:" + std::to_string(control.port()));
  RequestRuleFault fault("dead", client,
                         {.id = "dead", .route = "/", .action = RuleAction::kStatus, .status = 503, .ttl = 300ms},
                         {.confirm_fired = true});
  fault.Apply();
  EXPECT_EQ(load::HttpFetch("127.0.0.1:" + std::to_string(f.proxy.port()), {.target = "/x"}, 2s).status, 503);
  const auto applied = fault.ConfirmApplied(Clock::now() + 2s);
  EXPECT_EQ(applied.status, chaos::Confirmation::Status::kConfirmed) << applied.detail;
  std::this_thread::sleep_for(700ms);  // over two leases: renewed, still there
  EXPECT_EQ(f.rules->List().size(), 1u);
  fault.Revert();
  EXPECT_EQ(fault.ConfirmReverted(Clock::now() + 2s).status, chaos::Confirmation::Status::kConfirmed);
  EXPECT_EQ(load::HttpFetch("127.0.0.1:" + std::to_string(f.proxy.port()), {.target = "/x"}, 2s).status, 200);
}

TEST(RequestRuleFaultTest, AnInterruptedScheduleLeavesNoRule) {
  ProxyFixture f;
  ControlServer control("127.0.0.1:0", f.rules);
  RequestProxyClient client("127.0.0.1:" + std::to_string(control.port()));
  auto fault = std::make_shared<RequestRuleFault>(
      "dead", client, RequestRule{.id = "dead", .route = "/", .action = RuleAction::kStatus, .status = 503});
  chaos::ChaosTimeline timeline;
  {
    const RunClock clock = RunClock::StartNow();
    chaos::ChaosScheduler scheduler(clock, timeline);
    scheduler.Start({{.at = 0ms, .duration = 60s, .fault = fault}});
    // Bounded: the rule shows up within 5 s.
    for (int i = 0; i < 100 && f.rules->List().empty(); ++i) std::this_thread::sleep_for(50ms);
    ASSERT_EQ(f.rules->List().size(), 1u);
    scheduler.Abort();  // what SIGINT does
  }
  EXPECT_TRUE(f.rules->List().empty());
}

TEST(RequestProxyProcessTest, TheProgramProxiesTakesRulesAndExitsCleanlyOnSigterm) {
  load::HttpTestServer upstream([](const load::HttpRequest&) { return load::TestReply{.body = "up"}; });
  RequestProxyProcess proxy = RequestProxyProcess::Start({.upstream = upstream.address(), .seed = 1});
  EXPECT_EQ(load::HttpFetch(proxy.address(), {.target = "/x"}, 2s).body, "up");
  RequestProxyClient client(proxy.control_address());
  client.SetRule({.id = "dead", .route = "/", .action = RuleAction::kStatus, .status = 429});
  EXPECT_EQ(load::HttpFetch(proxy.address(), {.target = "/x"}, 2s).status, 429);
  EXPECT_EQ(proxy.Stop(), 0);  // SIGTERM: rules cleared, exit 0
  EXPECT_FALSE(proxy.Alive());
}

TEST(RequestProxyProcessTest, ABadFlagExitsTwoNamingIt) {
  process::ChildOptions o;
  o.program = DefaultRequestProxyBinary();
  o.args = {"--upstream=127.0.0.1:1", "--colour=red"};
  process::ChildProcess child = process::ChildProcess::Start(o);
  EXPECT_EQ(child.Wait(10s), 2);
}

}  // namespace
}  // namespace aftershock::request_proxy
