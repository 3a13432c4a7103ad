#include "framework/request_proxy/request_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace aftershock::request_proxy {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

RequestRule Rule() {
  return {.id = "r1", .protocol = Protocol::kHttp, .route = "/search", .share = 0.5, .action = StatusAction{503}};
}

std::string ErrorOf(const RequestRule& rule) {
  try {
    ValidateRule(rule);
  } catch (const RuleError& e) {
    return e.what();
  }
  return "";
}

std::string JsonErrorOf(const nlohmann::json& json) {
  try {
    RuleFromJson(json);
  } catch (const RuleError& e) {
    return e.what();
  }
  return "";
}

TEST(RequestRulesTest, ValidationNamesTheField) {
  EXPECT_EQ(ErrorOf(Rule()), "");
  RequestRule r = Rule();
  r.share = 0;
  EXPECT_EQ(ErrorOf(r), "rule 'r1': 'share' must be in (0, 1], got 0");
  r.share = 1.5;
  EXPECT_THAT(ErrorOf(r), HasSubstr("'share' must be in (0, 1], got 1.5"));
  r = Rule();
  r.id = "";
  EXPECT_THAT(ErrorOf(r), HasSubstr("'id' is required"));
  r.id = "a/b";
  EXPECT_THAT(ErrorOf(r), HasSubstr("'id' may hold only"));
  r = Rule();
  r.route = "search";
  EXPECT_THAT(ErrorOf(r), HasSubstr("'route' must start with '/'"));
  r = Rule();
  r.action = StatusAction{99};
  EXPECT_THAT(ErrorOf(r), HasSubstr("'code' must be an HTTP status in 200..599"));
  r.protocol = Protocol::kGrpc;
  r.action = StatusAction{0};
  EXPECT_THAT(ErrorOf(r), HasSubstr("'code' must be a gRPC status code in 1..16"));
  r.action = StatusAction{14};
  EXPECT_EQ(ErrorOf(r), "");
  r.action = DelayRequestAction{0ms};
  EXPECT_THAT(ErrorOf(r), HasSubstr("'ms' must be in 1..600000, got 0"));
  r.action = DelayResponseAction{600001ms};
  EXPECT_THAT(ErrorOf(r), HasSubstr("'ms' must be in 1..600000"));
  r.action = TruncateBodyAction{-1};
  EXPECT_THAT(ErrorOf(r), HasSubstr("'keep_bytes' must be in 0.."));
  r = Rule();
  r.ttl = -1ms;
  EXPECT_THAT(ErrorOf(r), HasSubstr("'ttl_ms' must be in 0.."));
}

TEST(RequestRulesTest, JsonRoundTripsEveryAction) {
  for (RuleAction action : std::vector<RuleAction>{StatusAction{503}, DelayRequestAction{20ms},
                                                   DelayResponseAction{30ms}, TruncateBodyAction{7}}) {
    RequestRule r = Rule();
    r.action = action;
    r.ttl = 5000ms;
    EXPECT_EQ(RuleFromJson(RuleToJson(r)), r) << RuleToJson(r).dump();
  }
  EXPECT_EQ(RuleToJson(Rule()).dump(),
            R"({"action":"status","code":503,"id":"r1","protocol":"http","route":"/search","share":0.5})");
}

TEST(RequestRulesTest, JsonIsStrict) {
  nlohmann::json good = RuleToJson(Rule());
  nlohmann::json j = good;
  j["colour"] = "red";
  EXPECT_THAT(JsonErrorOf(j), HasSubstr("rule 'r1': unknown key 'colour'"));
  j = good;
  j["ms"] = 5;
  EXPECT_THAT(JsonErrorOf(j), HasSubstr("unknown key 'ms' for action 'status'"));
  j = good;
  j.erase("code");
  EXPECT_THAT(JsonErrorOf(j), HasSubstr("'code' is required for action 'status'"));
  j = good;
  j["code"] = "503";
  EXPECT_THAT(JsonErrorOf(j), HasSubstr("'code' must be an integer"));
  j = good;
  j["protocol"] = "ftp";
  EXPECT_THAT(JsonErrorOf(j), HasSubstr("'protocol' must be \"http\" or \"grpc\""));
  j = good;
  j["action"] = "explode";
  EXPECT_THAT(JsonErrorOf(j), HasSubstr("'action' must be one of"));
  j = good;
  j.erase("share");
  EXPECT_THAT(JsonErrorOf(j), HasSubstr("'share' is required"));
  EXPECT_THAT(JsonErrorOf(nlohmann::json::array()), HasSubstr("must be a JSON object"));
}

TEST(RequestRulesTest, RoutesMatchByPrefixIgnoringTheQuery) {
  EXPECT_TRUE(RouteMatches("/search", "/search?q=x"));
  EXPECT_TRUE(RouteMatches("/search", "/search/more"));
  EXPECT_FALSE(RouteMatches("/search", "/sear"));
  EXPECT_FALSE(RouteMatches("/search", "/watch?x=/search"));
  EXPECT_TRUE(RouteMatches("/pkg.Svc/", "/pkg.Svc/Get"));
}

TEST(RuleTableTest, FirstMatchingRuleDecidesAndCounts) {
  RuleTable table(RuleTable::SeededRng(1));
  table.Set({.id = "a", .route = "/x", .share = 1.0, .action = StatusAction{500}});
  table.Set({.id = "b", .route = "/", .share = 1.0, .action = StatusAction{501}});
  table.Set({.id = "g", .protocol = Protocol::kGrpc, .route = "/", .share = 1.0, .action = StatusAction{14}});
  EXPECT_EQ(table.Match(Protocol::kHttp, "/x/1")->id, "a");
  EXPECT_EQ(table.Match(Protocol::kHttp, "/y")->id, "b");
  EXPECT_EQ(table.Match(Protocol::kGrpc, "/pkg.S/M")->id, "g");
  const auto list = table.List();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].matched, 1u);
  EXPECT_EQ(list[1].fired, 1u);
  EXPECT_TRUE(table.Clear("a"));
  EXPECT_FALSE(table.Clear("a"));
  EXPECT_EQ(table.Match(Protocol::kHttp, "/x")->id, "b");
  EXPECT_EQ(table.ClearAll(), 2u);
  EXPECT_FALSE(table.Match(Protocol::kHttp, "/x"));
}

TEST(RuleTableTest, SeededShareIsDeterministicAndNearTheShare) {
  auto fired = [](std::uint64_t seed) {
    RuleTable table(RuleTable::SeededRng(seed));
    table.Set({.id = "a", .route = "/", .share = 0.3, .action = StatusAction{503}});
    int n = 0;
    for (int i = 0; i < 10000; ++i) n += table.Match(Protocol::kHttp, "/q").has_value() ? 1 : 0;
    return n;
  };
  EXPECT_EQ(fired(5), fired(5));
  EXPECT_NEAR(fired(5) / 10000.0, 0.3, 0.02);
}

TEST(RuleTableTest, SameRuleRenewsAndKeepsCountersADifferentOneResets) {
  RuleTable table(RuleTable::SeededRng(1));
  RequestRule r = Rule();
  r.share = 1.0;
  table.Set(r);
  table.Match(Protocol::kHttp, "/search");
  table.Set(r);
  EXPECT_EQ(table.List().at(0).fired, 1u);
  r.action = StatusAction{502};
  table.Set(r);
  EXPECT_EQ(table.List().at(0).fired, 0u);
  EXPECT_EQ(std::get<StatusAction>(table.List().at(0).rule.action).code, 502);
  RequestRule bad = r;
  bad.share = 2;
  EXPECT_THROW(table.Set(bad), RuleError);
}

TEST(RuleTableTest, LeaseExpiryDropsTheRule) {
  RuleTable table(RuleTable::SeededRng(1));
  RequestRule r = Rule();
  r.ttl = 100ms;
  table.Set(r);
  ASSERT_EQ(table.List().size(), 1u);
  EXPECT_TRUE(table.List().at(0).expires_in.has_value());
  EXPECT_EQ(table.Expiries().count, 0u);
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(table.List().size(), 0u);
  EXPECT_FALSE(table.Match(Protocol::kHttp, "/search"));
  // The expiry is counted, once: the proxy reverted a fault nobody asked it to.
  const LeaseExpiries e = table.Expiries();
  EXPECT_EQ(e.count, 1u);
  EXPECT_GT(e.last_unix_ms, 0);
  EXPECT_NE(e.last.find("expired: its 100 ms lease was not renewed"), std::string::npos) << e.last;
  EXPECT_EQ(table.Expiries().count, 1u);
}

TEST(RuleTableTest, ARenewedLeaseAndAClearedRuleAreNoExpiry) {
  RuleTable table(RuleTable::SeededRng(1));
  RequestRule r = Rule();
  r.ttl = 150ms;
  table.Set(r);
  std::this_thread::sleep_for(100ms);
  table.Set(r);  // renewed
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(table.size(), 1u);
  EXPECT_TRUE(table.Clear(r.id));
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(table.Expiries().count, 0u);
}

}  // namespace
}  // namespace aftershock::request_proxy
