#include "framework/load/http_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "framework/load/http_test_server.h"

namespace aftershock::load {
namespace {

using std::chrono::milliseconds;

TEST(HttpClientTest, ParsesHostPort) {
  HttpHostPort a = ParseHttpHostPort("127.0.0.1:8080");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 8080);
  HttpHostPort b = ParseHttpHostPort("[::1]:9");
  EXPECT_EQ(b.host, "::1");
  EXPECT_EQ(b.port, 9);
  EXPECT_THROW(ParseHttpHostPort("127.0.0.1:"), std::invalid_argument);
  EXPECT_THROW(ParseHttpHostPort("127.0.0.1:0"), std::invalid_argument);
  EXPECT_THROW(ParseHttpHostPort("127.0.0.1:x1"), std::invalid_argument);
  EXPECT_THROW(ParseHttpHostPort("192.168.1.1:80"), std::invalid_argument);
  EXPECT_EQ(ParseHttpHostPort("192.168.1.1:80", /*allow_non_loopback=*/true).port, 80);
}

TEST(HttpClientTest, FetchReturnsStatusAndBody) {
  HttpTestServer server([](const HttpRequest& r) { return TestReply{.status = 201, .body = r.method + ":" + r.body}; });
  HttpReply reply = HttpFetch(server.address(), {.method = "POST", .target = "/x", .body = "0.5"}, milliseconds(2000));
  EXPECT_EQ(reply.status, 201);
  EXPECT_EQ(reply.body, "POST:0.5");
  EXPECT_EQ(reply.error, "");
}

TEST(HttpClientTest, FetchKeepsTheResponseHeadersFoundCaseInsensitively) {
  HttpTestServer server([](const HttpRequest&) {
    return TestReply{.status = 429, .body = "shed", .headers = {{"Retry-After", "5"}, {"X-Why", "overload"}}};
  });
  HttpReply reply = HttpFetch(server.address(), {.target = "/x"}, milliseconds(2000));
  EXPECT_EQ(reply.status, 429);
  const std::string* retry_after = FindHttpHeader(reply.headers, "retry-after");
  ASSERT_NE(retry_after, nullptr);
  EXPECT_EQ(*retry_after, "5");
  ASSERT_NE(FindHttpHeader(reply.headers, "X-WHY"), nullptr);
  EXPECT_EQ(*FindHttpHeader(reply.headers, "X-WHY"), "overload");
  EXPECT_EQ(FindHttpHeader(reply.headers, "Retry-After-Not"), nullptr);
  EXPECT_EQ(FindHttpHeader(reply.headers, "Retry-Afte"), nullptr);
}

TEST(HttpClientTest, FetchTimesOut) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{.delay = milliseconds(3000)}; });
  const auto start = std::chrono::steady_clock::now();
  HttpReply reply = HttpFetch(server.address(), {}, milliseconds(200));
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2500));
  EXPECT_EQ(reply.status, 0);
  EXPECT_NE(reply.error.find("timed out after 200 ms"), std::string::npos) << reply.error;
  EXPECT_EQ(HttpReplyCode(reply), kCodeDeadlineExceeded);  // sent, then no answer: may have been applied
}

TEST(HttpClientTest, ReplyCodesSayWhetherTheRequestLeft) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{.status = 503}; });
  EXPECT_EQ(HttpReplyCode(HttpFetch(server.address(), {}, milliseconds(2000))), 503);
  const HttpReply refused = HttpFetch("127.0.0.1:" + std::to_string(FreeLoopbackPort()), {}, milliseconds(2000));
  EXPECT_FALSE(refused.sent);
  EXPECT_EQ(HttpReplyCode(refused), kCodeNotSent);
  HttpReply reset;
  reset.sent = true;  // what a write or read failure leaves
  EXPECT_EQ(HttpReplyCode(reset), kCodeTransportError);
}

TEST(HttpClientTest, WaitForHealthySucceedsOn200) {
  HttpTestServer server([](const HttpRequest& r) { return TestReply{.status = r.target == "/healthz" ? 200 : 404}; });
  std::string error;
  EXPECT_TRUE(WaitForHealthy(server.address(), "/healthz", std::chrono::seconds(5), &error)) << error;
}

TEST(HttpClientTest, WaitForHealthyWaitsUntilHealthy) {
  std::atomic<int> polls{0};
  HttpTestServer server([&](const HttpRequest&) { return TestReply{.status = polls.fetch_add(1) < 3 ? 503 : 200}; });
  std::string error;
  EXPECT_TRUE(WaitForHealthy(server.address(), "/healthz", std::chrono::seconds(10), &error)) << error;
  EXPECT_EQ(polls.load(), 4);
}

TEST(HttpClientTest, WaitForHealthyTimesOutWithAMessage) {
  const std::string address = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(WaitForHealthy(address, "/healthz", std::chrono::seconds(1), &error));
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, milliseconds(900));
  EXPECT_LT(waited, milliseconds(5000));
  EXPECT_NE(error.find("target " + address + " not healthy (no 200 from GET /healthz) within 1 s"), std::string::npos)
      << error;
  EXPECT_NE(error.find("connect"), std::string::npos) << error;
}

TEST(HttpClientTest, WaitForHealthyReportsTheLastStatus) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{.status = 503}; });
  std::string error;
  EXPECT_FALSE(WaitForHealthy(server.address(), "/healthz", std::chrono::seconds(1), &error));
  EXPECT_NE(error.find("last: GET " + server.address() + "/healthz answered 503"), std::string::npos) << error;
}

}  // namespace
}  // namespace aftershock::load
