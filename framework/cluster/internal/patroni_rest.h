// A minimal synchronous HTTP/1.1 GET client for Patroni's and etcd's REST APIs on loopback.
//
// Every call is bounded by one overall timeout (connect + write + read) and never throws: transport
// failures come back as HttpResult::error, so pollers can treat "member not answering" as a state.
//
//   HttpResult r = HttpGet("127.0.0.1", 8008, "/cluster", std::chrono::milliseconds(1500));
//   if (r.ok()) { auto json = nlohmann::json::parse(r.body); ... }
//   // Patroni answers /primary with 200 on the leader and 503 elsewhere: inspect r.status.
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_PATRONI_REST_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_PATRONI_REST_H_

#include <chrono>
#include <string>

namespace aftershock::cluster::internal {

struct HttpResult {
  int status = 0;     // HTTP status; 0 when no response was received.
  std::string body;
  std::string error;  // Transport error (refused, timeout, ...); empty when a response arrived.

  bool answered() const { return error.empty() && status != 0; }
  bool ok() const { return answered() && status >= 200 && status < 300; }
};

// GET http://host:port<target>. Bounded by `timeout` in total.
HttpResult HttpGet(const std::string& host, int port, const std::string& target,
                   std::chrono::milliseconds timeout);

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_PATRONI_REST_H_
