#include "framework/request_proxy/control_api.h"

#include "framework/net/http_exchange.h"
#include "framework/net/loopback.h"
#include "framework/request_proxy/internal/session_server.h"

namespace aftershock::request_proxy {
namespace {

using internal::Request;
using internal::Response;
namespace http = internal::http;

constexpr std::string_view kRules = "/rules";

Response Reply(const Request& req, http::status status, std::string body, bool json = false) {
  Response r{status, req.version()};
  r.set(http::field::content_type, json ? "application/json" : "text/plain");
  r.body() = std::move(body);
  r.prepare_payload();
  return r;
}

Response Handle(RuleTable& rules, const Request& req) {
  const std::string target(req.target());
  if (target == "/healthz") return Reply(req, http::status::ok, "ok\n");
  if (target == kRules) {
    if (req.method() == http::verb::get) return Reply(req, http::status::ok, RuleStatusesToJson(rules.List()), true);
    if (req.method() == http::verb::delete_) {
      rules.ClearAll();
      return Reply(req, http::status::ok, "cleared\n");
    }
    return Reply(req, http::status::method_not_allowed, "GET or DELETE /rules\n");
  }
  if (target.rfind(std::string(kRules) + "/", 0) == 0) {
    const std::string id = target.substr(kRules.size() + 1);
    if (req.method() == http::verb::put) {
      try {
        const RequestRule rule = RuleFromJson(req.body());
        if (rule.id != id) return Reply(req, http::status::bad_request, "the rule's id '" + rule.id + "' is not '" + id + "'\n");
        rules.Set(rule);
      } catch (const RuleError& e) {
        return Reply(req, http::status::bad_request, std::string(e.what()) + "\n");
      }
      return Reply(req, http::status::ok, "set\n");
    }
    if (req.method() == http::verb::delete_) {
      return rules.Clear(id) ? Reply(req, http::status::ok, "cleared\n")
                             : Reply(req, http::status::not_found, "no rule '" + id + "'\n");
    }
    return Reply(req, http::status::method_not_allowed, "PUT or DELETE /rules/<id>\n");
  }
  return Reply(req, http::status::not_found, "unknown path " + target + "\n");
}

}  // namespace

ControlServer::ControlServer(const std::string& listen, std::shared_ptr<RuleTable> rules) {
  if (!rules) throw std::invalid_argument("ControlServer: no rule table");
  server_ = std::make_unique<internal::SessionServer>(
      internal::SessionServerOptions{.listen = listen, .max_connections = 32},
      [rules](Request& req, internal::Session&) { return Handle(*rules, req); });
}

ControlServer::~ControlServer() { Stop(); }
int ControlServer::port() const { return server_->port(); }
void ControlServer::Stop() {
  if (server_) server_->Stop();
}

RequestProxyClient::RequestProxyClient(std::string control, std::chrono::milliseconds timeout)
    : control_(std::move(control)), timeout_(timeout) {
  ::aftershock::net::RequireLoopbackAddress(control_, "request proxy control API");
  const auto hp = ::aftershock::net::SplitHostPort(control_);
  host_ = hp->host == "localhost" ? "127.0.0.1" : hp->host;
  port_ = hp->port;
}

namespace {
std::string Describe(const std::string& what, const net::HttpResult& r) {
  return what + ": " + (r.answered() ? "HTTP " + std::to_string(r.status) + " " + r.body : r.error);
}
}  // namespace

void RequestProxyClient::SetRule(const RequestRule& rule) const {
  ValidateRule(rule);
  const auto r = net::HttpExchange(
      {.method = "PUT", .host = host_, .port = port_, .target = "/rules/" + rule.id, .body = RuleToJson(rule)}, timeout_);
  if (!r.success()) throw RequestProxyError(Describe("request proxy " + control_ + ": setting rule '" + rule.id + "'", r));
}

bool RequestProxyClient::ClearRule(const std::string& id) const {
  const auto r = net::HttpExchange({.method = "DELETE", .host = host_, .port = port_, .target = "/rules/" + id}, timeout_);
  if (r.answered() && r.status == 404) return false;
  if (!r.success()) throw RequestProxyError(Describe("request proxy " + control_ + ": clearing rule '" + id + "'", r));
  return true;
}

void RequestProxyClient::ClearAll() const {
  const auto r = net::HttpExchange({.method = "DELETE", .host = host_, .port = port_, .target = "/rules"}, timeout_);
  if (!r.success()) throw RequestProxyError(Describe("request proxy " + control_ + ": clearing all rules", r));
}

std::vector<RuleStatus> RequestProxyClient::ListRules() const {
  const auto r = net::HttpExchange({.method = "GET", .host = host_, .port = port_, .target = "/rules"}, timeout_);
  if (!r.success()) throw RequestProxyError(Describe("request proxy " + control_ + ": listing rules", r));
  try {
    return RuleStatusesFromJson(r.body);
  } catch (const RuleError& e) {
    throw RequestProxyError("request proxy " + control_ + ": " + e.what());
  }
}

}  // namespace aftershock::request_proxy
