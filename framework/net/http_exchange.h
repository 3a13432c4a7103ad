// HttpExchange: one blocking HTTP/1.1 request to a loopback service (Patroni's and etcd's REST APIs,
// Prometheus, Alertmanager, webhook sinks), on a fresh connection.
//
// One deadline covers connect, write and read, so a hung server can never hang a caller, and it
// never throws: transport failures come back in HttpResult::error, so pollers can treat "not
// answering" as a state. (Load traffic uses framework/load's pooled HttpFetch instead.)
//
//   HttpResult r = HttpExchange({.host = "127.0.0.1", .port = 8008, .target = "/cluster"}, 1500ms);
//   if (r.success()) { auto json = nlohmann::json::parse(r.body); ... }
//   HttpExchange({.method = "PATCH", .port = 8008, .target = "/config", .body = R"({"ttl":10})"}, 2s);
#ifndef AFTERSHOCK_FRAMEWORK_NET_HTTP_EXCHANGE_H_
#define AFTERSHOCK_FRAMEWORK_NET_HTTP_EXCHANGE_H_

#include <chrono>
#include <string>

namespace aftershock::net {

struct HttpCall {
  std::string method = "GET";  // any HTTP method Beast knows: GET, POST, PATCH, PUT, DELETE, ...
  std::string host = "127.0.0.1";  // an IP literal
  int port = 0;
  std::string target = "/";
  std::string body{};  // sent (with content_type) when non-empty or when the method is not GET
  std::string content_type = "application/json";
  std::string user_agent = "aftershock";
};

struct HttpResult {
  int status = 0;     // HTTP status; 0 when no response arrived
  std::string body;
  std::string error;  // transport error ("connect: Connection refused", ...); empty when a response arrived
  bool answered() const { return error.empty() && status != 0; }
  bool success() const { return answered() && status >= 200 && status < 300; }
};

HttpResult HttpExchange(const HttpCall& call, std::chrono::milliseconds timeout);

// Percent-encodes a query parameter value (RFC 3986 unreserved characters stay as they are).
std::string UrlEncode(const std::string& value);

}  // namespace aftershock::net

#endif  // AFTERSHOCK_FRAMEWORK_NET_HTTP_EXCHANGE_H_
