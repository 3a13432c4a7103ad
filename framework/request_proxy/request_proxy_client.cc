#include "framework/request_proxy/request_proxy_client.h"

#include <stdexcept>
#include <utility>

#include "framework/net/http_exchange.h"
#include "framework/net/loopback.h"

namespace aftershock::request_proxy {

using Json = nlohmann::json;

RequestProxyClient::RequestProxyClient(std::string host, int port, std::chrono::milliseconds timeout)
    : host_(std::move(host)), port_(port), timeout_(timeout) {
  if (!net::IsLoopbackHost(host_) || host_ == "localhost") {
    throw std::invalid_argument("RequestProxyClient: host '" + host_ + "' is not a loopback IP literal");
  }
  if (port_ < 1 || port_ > 65535) throw std::invalid_argument("RequestProxyClient: port " + std::to_string(port_) + " is not in 1..65535");
}

Json RequestProxyClient::Call(const std::string& method, const std::string& target, const std::string& body,
                              bool allow_not_found, int* status) {
  const net::HttpResult result =
      net::HttpExchange({.method = method, .host = host_, .port = port_, .target = target, .body = body}, timeout_);
  const std::string what = "request proxy " + host_ + ":" + std::to_string(port_) + ": " + method + " " + target;
  if (!result.answered()) throw RequestProxyError(what + ": " + result.error);
  if (status != nullptr) *status = result.status;
  Json json = Json::parse(result.body, nullptr, false);
  if (result.status == 404 && allow_not_found) return json;
  if (!result.success()) {
    const std::string error =
        (!json.is_discarded() && json.is_object() && json.contains("error")) ? json["error"].get<std::string>() : result.body;
    throw RequestProxyError(what + ": HTTP " + std::to_string(result.status) + ": " + error);
  }
  if (json.is_discarded()) throw RequestProxyError(what + ": the answer is not JSON: " + result.body);
  return json;
}

void RequestProxyClient::SetRule(const RequestRule& rule) {
  ValidateRule(rule);
  Call("PUT", "/rules/" + rule.id, RuleToJson(rule).dump(), false, nullptr);
}

bool RequestProxyClient::ClearRule(const std::string& id) {
  int status = 0;
  Call("DELETE", "/rules/" + id, "", true, &status);
  return status != 404;
}

std::size_t RequestProxyClient::ClearAll() {
  return Call("DELETE", "/rules", "", false, nullptr).at("cleared").get<std::size_t>();
}

std::vector<RuleStatus> RequestProxyClient::ListRules() {
  const Json json = Call("GET", "/rules", "", false, nullptr);
  try {
    return RuleStatusListFromJson(json);
  } catch (const std::exception& e) {
    throw RequestProxyError("request proxy " + host_ + ":" + std::to_string(port_) + ": GET /rules: " + e.what());
  }
}

std::optional<RuleStatus> RequestProxyClient::FindRule(const std::string& id) {
  for (RuleStatus& status : ListRules()) {
    if (status.rule.id == id) return std::move(status);
  }
  return std::nullopt;
}

Json RequestProxyClient::Listeners() { return Call("GET", "/listeners", "", false, nullptr); }

LeaseExpiries RequestProxyClient::Expiries() {
  const Json j = Call("GET", "/leases", "", false, nullptr);
  try {
    return LeaseExpiries{.count = j.at("expiries").get<std::uint64_t>(),
                         .last_unix_ms = j.at("last_expiry_unix_ms").get<std::int64_t>(),
                         .last = j.at("last_expiry").get<std::string>()};
  } catch (const Json::exception& e) {
    throw std::runtime_error("request proxy GET /leases: unexpected answer " + j.dump() + " (" + e.what() + ")");
  }
}

}  // namespace aftershock::request_proxy
