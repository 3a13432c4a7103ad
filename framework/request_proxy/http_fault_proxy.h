// HttpFaultProxy: an HTTP/1.1 reverse proxy on loopback that applies request rules
// (request_rules.h) to the requests it forwards to one loopback upstream.
//
// Per request, the first matching http rule that fires decides: status -> answered at once, the
// upstream untouched (body names the rule); delay_request -> wait, then forward; delay_response ->
// forward, then wait before answering; truncate_body -> forward, then cut the body to N bytes with
// Content-Length adjusted (a syntactically valid, incomplete payload). Every answer a rule acted on
// carries `X-Aftershock-Fault: <rule id>`. Keep-alive on both sides; idle upstream connections are
// pooled. Asio coroutines on a fixed number of threads (no thread per connection).
//
//   auto rules = std::make_shared<RuleTable>();
//   HttpFaultProxy proxy(rules, {.listen = "127.0.0.1:0", .upstream = "127.0.0.1:8080"});
//   rules->Set({.id = "r1", .route = "/search", .share = 0.3, .action = StatusAction{503}});
//   // requests to 127.0.0.1:<proxy.port()> now get 503 three times in ten
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_HTTP_FAULT_PROXY_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_HTTP_FAULT_PROXY_H_

#include <chrono>
#include <memory>
#include <string>

#include "framework/request_proxy/request_rules.h"

namespace aftershock::request_proxy {

inline constexpr const char* kFaultHeader = "X-Aftershock-Fault";

struct HttpFaultProxyOptions {
  std::string listen = "127.0.0.1:0";  // loopback; port 0 = any free port
  std::string upstream{};              // loopback host:port (an IP literal or localhost)
  int threads = 2;                     // 1..16
  std::size_t max_idle_upstream = 32;  // pooled idle keep-alive connections to the upstream
  std::chrono::milliseconds upstream_timeout = std::chrono::seconds(30);  // per upstream exchange
};

class HttpFaultProxy {
 public:
  // Listens at once; throws std::invalid_argument naming the option for a non-loopback listen or
  // upstream address or a bad thread count, std::runtime_error when it cannot listen.
  HttpFaultProxy(std::shared_ptr<RuleTable> rules, HttpFaultProxyOptions options);
  ~HttpFaultProxy();
  HttpFaultProxy(const HttpFaultProxy&) = delete;
  HttpFaultProxy& operator=(const HttpFaultProxy&) = delete;

  int port() const;
  // Stops accepting and serving, joins the threads (idempotent; the destructor calls it).
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_HTTP_FAULT_PROXY_H_
