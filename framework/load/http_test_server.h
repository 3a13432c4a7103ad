// HttpTestServer: a tiny scripted HTTP/1.1 server on 127.0.0.1 for the HTTP load tests (test-only).
//
// Every request goes to the handler (on the server's thread), whose reply (status, body, extra
// headers) may be delayed with a timer; connections are kept alive unless the reply says close.
// Counts accepted connections and requests, so tests can see keep-alive reuse from the server's side.
//
//   HttpTestServer server([](const HttpRequest& r) { return TestReply{.status = 503, .body = "busy"}; });
//   HttpWorkload workload({.target = server.address(), .path = "/x"});
//   HttpFetch("127.0.0.1:" + std::to_string(FreeLoopbackPort()), ...);   // connection refused
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_HTTP_TEST_SERVER_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_HTTP_TEST_SERVER_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "framework/load/http_client.h"

namespace aftershock::load {

struct TestReply {
  int status = 200;
  std::string body = "ok";
  std::vector<std::pair<std::string, std::string>> headers{};  // extra response headers
  std::chrono::milliseconds delay{0};
  bool close = false;           // "Connection: close", then close
  bool close_silently = false;  // claims keep-alive, then closes anyway (a stale pooled connection)
};

class HttpTestServer {
 public:
  using Handler = std::function<TestReply(const HttpRequest& request)>;
  explicit HttpTestServer(Handler handler);
  ~HttpTestServer();
  HttpTestServer(const HttpTestServer&) = delete;
  HttpTestServer& operator=(const HttpTestServer&) = delete;

  int port() const;
  std::string address() const { return "127.0.0.1:" + std::to_string(port()); }
  int accepted_connections() const;
  int requests() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// A 127.0.0.1 port that was free a moment ago (bound to port 0, then released): nothing listens
// there, so a connection to it is refused.
int FreeLoopbackPort();

}  // namespace aftershock::load

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_HTTP_TEST_SERVER_H_
