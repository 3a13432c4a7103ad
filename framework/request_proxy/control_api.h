// The request proxy's control API and its client: rules set and cleared at run time, over HTTP on
// loopback (a port of its own, never the proxied one).
//
//   PUT    /rules/<id>   body: a rule's JSON (request_rule.h); its "id" must be <id>   -> 200
//   DELETE /rules/<id>   -> 200, or 404 for no such rule
//   DELETE /rules        -> 200 (all cleared)
//   GET    /rules        -> 200, [{"rule":{...},"matched":N,"fired":N,"lease_left_ms":N}, ...]
//   GET    /healthz      -> 200
// A bad rule is 400 with the RuleError's text.
//
//   auto rules = std::make_shared<RuleTable>();
//   ControlServer control("127.0.0.1:0", rules);
//   RequestProxyClient client("127.0.0.1:" + std::to_string(control.port()));
//   client.SetRule({.id = "dead", .route = "/meta", .action = RuleAction::kStatus, .status = 503});
//   client.ListRules();   // with counters
//   client.ClearAll();
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_CONTROL_API_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_CONTROL_API_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "framework/request_proxy/request_rule.h"

namespace aftershock::request_proxy {

namespace internal {
class SessionServer;
}

class ControlServer {
 public:
  // Throws as HttpFaultProxy does for a bad listen address.
  ControlServer(const std::string& listen, std::shared_ptr<RuleTable> rules);
  ~ControlServer();
  int port() const;
  void Stop();

 private:
  std::unique_ptr<internal::SessionServer> server_;
};

// Thrown by the client when the proxy does not answer or refuses a call (the text says which).
class RequestProxyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RequestProxyClient {
 public:
  // `control`: the control API's host:port (loopback; throws std::invalid_argument otherwise).
  explicit RequestProxyClient(std::string control, std::chrono::milliseconds timeout = std::chrono::seconds(2));
  void SetRule(const RequestRule& rule) const;
  bool ClearRule(const std::string& id) const;  // false: the proxy had no such rule
  void ClearAll() const;
  std::vector<RuleStatus> ListRules() const;
  const std::string& control() const { return control_; }

 private:
  std::string host_;
  int port_ = 0;
  std::string control_;
  std::chrono::milliseconds timeout_;
};

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_CONTROL_API_H_
