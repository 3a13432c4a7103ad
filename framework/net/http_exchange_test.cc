#include "framework/net/http_exchange.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace aftershock::net {
namespace {

using std::chrono::milliseconds;

// A listening loopback socket on a free port; optionally answers one request with `reply`.
class OneShotServer {
 public:
  explicit OneShotServer(std::string reply = "") : reply_(std::move(reply)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd_, 4), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    if (!reply_.empty()) thread_ = std::thread([this] { Serve(); });
  }
  ~OneShotServer() {
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  // What the client sent (after the server answered).
  std::string request() {
    if (thread_.joinable()) thread_.join();
    return request_;
  }

 private:
  void Serve() {
    const int client = ::accept(fd_, nullptr, nullptr);
    if (client < 0) return;
    char buffer[4096];
    // Bounded: read until the headers and a Content-Length body are in, at most 64 reads.
    for (int i = 0; i < 64; ++i) {
      const ssize_t n = ::read(client, buffer, sizeof buffer);
      if (n <= 0) break;
      request_.append(buffer, static_cast<std::size_t>(n));
      const std::size_t end = request_.find("\r\n\r\n");
      if (end == std::string::npos) continue;
      std::size_t length = 0;
      const std::size_t cl = request_.find("Content-Length: ");
      if (cl != std::string::npos) length = std::stoul(request_.substr(cl + 16));
      if (request_.size() >= end + 4 + length) break;
    }
    ::write(client, reply_.data(), reply_.size());
    ::close(client);
  }

  std::string reply_;
  int fd_ = -1;
  int port_ = 0;
  std::string request_;
  std::thread thread_;
};

TEST(HttpExchangeTest, GetReturnsStatusAndBody) {
  OneShotServer server("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
  const HttpResult r = HttpExchange({.port = server.port(), .target = "/cluster"}, milliseconds(5000));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello");
  EXPECT_TRUE(r.answered());
  EXPECT_TRUE(r.success());
  const std::string sent = server.request();
  EXPECT_EQ(sent.rfind("GET /cluster HTTP/1.1\r\n", 0), 0u) << sent;
  EXPECT_EQ(sent.find("Content-Type"), std::string::npos) << sent;
}

TEST(HttpExchangeTest, PatchSendsTheJsonBody) {
  OneShotServer server("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
  const HttpResult r = HttpExchange(
      {.method = "PATCH", .port = server.port(), .target = "/config", .body = R"({"ttl":10})"}, milliseconds(5000));
  EXPECT_TRUE(r.success()) << r.error;
  const std::string sent = server.request();
  EXPECT_EQ(sent.rfind("PATCH /config HTTP/1.1\r\n", 0), 0u) << sent;
  EXPECT_NE(sent.find("Content-Type: application/json\r\n"), std::string::npos) << sent;
  EXPECT_NE(sent.find("Content-Length: 10\r\n"), std::string::npos) << sent;
  EXPECT_EQ(sent.substr(sent.size() - 10), R"({"ttl":10})");
}

TEST(HttpExchangeTest, AnErrorStatusIsAnsweredButNotSuccess) {
  OneShotServer server("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy");
  const HttpResult r = HttpExchange({.port = server.port(), .target = "/primary"}, milliseconds(5000));
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "busy");
  EXPECT_TRUE(r.answered());
  EXPECT_FALSE(r.success());
}

TEST(HttpExchangeTest, TransportFailuresComeBackAsErrors) {
  int port = 0;
  {
    OneShotServer closed;  // bound, then closed again: nothing listens there any more
    port = closed.port();
  }
  const HttpResult refused = HttpExchange({.port = port}, milliseconds(5000));
  EXPECT_FALSE(refused.answered());
  EXPECT_EQ(refused.error, "connect: Connection refused");

  EXPECT_EQ(HttpExchange({.host = "not-an-ip", .port = 80}, milliseconds(100)).error.rfind("bad address 'not-an-ip'", 0),
            0u);
  EXPECT_EQ(HttpExchange({.method = "FROB", .port = 80}, milliseconds(100)).error, "unknown HTTP method 'FROB'");
}

TEST(HttpExchangeTest, AServerThatNeverAnswersTimesOut) {
  OneShotServer silent;  // listens (the kernel completes the handshake) but never reads or answers
  const auto start = std::chrono::steady_clock::now();
  const HttpResult r = HttpExchange({.port = silent.port()}, milliseconds(300));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(r.answered());
  EXPECT_EQ(r.error.rfind("read: ", 0), 0u) << r.error;
  EXPECT_LT(took, std::chrono::seconds(10)) << "the deadline was not honoured";
}

TEST(HttpExchangeTest, UrlEncodeKeepsUnreservedCharacters) {
  EXPECT_EQ(UrlEncode("rate(x[5m]) > 0.1"), "rate%28x%5B5m%5D%29%20%3E%200.1");
  EXPECT_EQ(UrlEncode("A-z_0.9~"), "A-z_0.9~");
}

}  // namespace
}  // namespace aftershock::net
