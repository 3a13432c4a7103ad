// ControlServer: the request proxy's control API, HTTP/1.1 JSON on loopback, over a RuleTable.
//
//   PUT    /rules/<id>   body: a rule (RuleToJson; "id" may be left out, else must equal <id>)
//                        -> 200 {"rule": {...}}; 400 {"error": "rule 'x': 'share' must be ..."}
//   DELETE /rules/<id>   -> 200 {"cleared": true}; 404 {"error": "no rule 'x'"}
//   DELETE /rules        -> 200 {"cleared": <how many>}
//   GET    /rules        -> 200 {"rules": [{...rule..., "matched": n, "fired": n, "expires_in_ms": n}]}
//   GET    /listeners    -> 200 the `listeners` object given at construction ({"http": "127.0.0.1:N", ...})
//   GET    /leases       -> 200 {"expiries": n, "last_expiry_unix_ms": t, "last_expiry": "rule 'x' ... expired: ..."}
//
//   auto rules = std::make_shared<RuleTable>();
//   ControlServer control(rules, {.listen = "127.0.0.1:0"});
//   RequestProxyClient client("127.0.0.1", control.port());
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_CONTROL_SERVER_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_CONTROL_SERVER_H_

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "framework/request_proxy/request_rules.h"

namespace aftershock::request_proxy {

struct ControlServerOptions {
  std::string listen = "127.0.0.1:0";                  // loopback; port 0 = any free port
  nlohmann::json listeners = nlohmann::json::object();  // what GET /listeners answers
};

class ControlServer {
 public:
  // Listens at once (one thread); throws std::invalid_argument for a non-loopback listen address,
  // std::runtime_error when it cannot listen.
  ControlServer(std::shared_ptr<RuleTable> rules, ControlServerOptions options);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  int port() const;
  void Stop();  // idempotent; the destructor calls it

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_CONTROL_SERVER_H_
