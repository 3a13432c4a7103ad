// RequestProxyClient: the blocking client of the request proxy's control API (control_server.h),
// over net::HttpExchange (a fresh connection and one deadline per call).
//
//   RequestProxyClient client("127.0.0.1", control_port);
//   client.SetRule({.id = "r1", .route = "/search", .share = 0.3, .action = StatusAction{503}});
//   std::optional<RuleStatus> r1 = client.FindRule("r1");   // with its matched/fired counters
//   client.ClearRule("r1");
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_PROXY_CLIENT_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_PROXY_CLIENT_H_

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/request_proxy/request_rules.h"

namespace aftershock::request_proxy {

// The proxy did not answer, or answered with an error; what() has the proxy's error text.
class RequestProxyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RequestProxyClient {
 public:
  // `host` must be a loopback IP literal (throws std::invalid_argument otherwise).
  RequestProxyClient(std::string host, int port, std::chrono::milliseconds timeout = std::chrono::seconds(3));

  void SetRule(const RequestRule& rule);      // validates locally first (RuleError)
  bool ClearRule(const std::string& id);      // false when the proxy had no such rule
  std::size_t ClearAll();
  std::vector<RuleStatus> ListRules();
  std::optional<RuleStatus> FindRule(const std::string& id);
  nlohmann::json Listeners();                 // {"http": "127.0.0.1:N", "grpc": ...}
  LeaseExpiries Expiries();                   // the rule leases that ran out (GET /leases)

  const std::string& host() const { return host_; }
  int port() const { return port_; }

 private:
  nlohmann::json Call(const std::string& method, const std::string& target, const std::string& body,
                      bool allow_not_found, int* status);

  std::string host_;
  int port_;
  std::chrono::milliseconds timeout_;
};

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_PROXY_CLIENT_H_
