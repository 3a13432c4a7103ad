// HttpFaultProxy: an HTTP/1.1 reverse proxy in front of one upstream (a service the user cannot
// modify: its metadata API, a payment provider's sandbox), applying RequestRules per request:
//   status          answer at once with the rule's status; the upstream never sees the request
//   delay_request   wait, then forward
//   delay_response  forward, then wait before answering
//   truncate_body   forward, then cut the body to keep_bytes (Content-Length adjusted): a valid
//                   HTTP response whose payload is incomplete
// Every faulted answer carries `X-Aftershock-Fault: <rule id>`. Keep-alive on both sides (one
// upstream connection per downstream connection). A failed upstream call is answered 502 with
// `X-Aftershock-Proxy-Error`. The rules are set at run time through the control API
// (control_api.h) or directly on the table.
//
//   auto rules = std::make_shared<RuleTable>();
//   HttpFaultProxy proxy({.listen = "127.0.0.1:0", .upstream = metadata.address()}, rules);
//   // the service under test talks to 127.0.0.1:<proxy.port()> instead of the upstream
//   rules->Set({.id = "dead", .route = "/meta", .action = RuleAction::kStatus, .status = 503});
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_HTTP_FAULT_PROXY_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_HTTP_FAULT_PROXY_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "framework/request_proxy/request_rule.h"

namespace aftershock::request_proxy {

namespace internal {
class SessionServer;
}

struct HttpFaultProxyOptions {
  std::string listen = "127.0.0.1:0";   // loopback host:port (0: any free port)
  std::string upstream;                 // loopback host:port; required
  int max_connections = 256;
  std::chrono::milliseconds upstream_timeout{30000};  // connect + write + read of one forward
};

struct HttpFaultProxyStats {
  std::uint64_t requests = 0;
  std::uint64_t faulted = 0;         // a rule fired
  std::uint64_t upstream_errors = 0; // answered 502
};

class HttpFaultProxy {
 public:
  // Throws std::invalid_argument for a bad or non-loopback address, std::runtime_error when it
  // cannot bind.
  HttpFaultProxy(HttpFaultProxyOptions options, std::shared_ptr<RuleTable> rules);
  ~HttpFaultProxy();
  HttpFaultProxy(const HttpFaultProxy&) = delete;
  HttpFaultProxy& operator=(const HttpFaultProxy&) = delete;

  int port() const;
  void Stop();
  HttpFaultProxyStats stats() const;

 private:
  struct Counters {
    std::atomic<std::uint64_t> requests{0}, faulted{0}, upstream_errors{0};
  };
  HttpFaultProxyOptions options_;
  std::shared_ptr<RuleTable> rules_;
  std::shared_ptr<Counters> counters_;
  std::unique_ptr<internal::SessionServer> server_;
};

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_HTTP_FAULT_PROXY_H_
