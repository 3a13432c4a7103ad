// GrpcFaultProxy: a gRPC proxy on loopback over the generic API (grpc::CallbackGenericService on
// the server side, grpc::GenericStub to one loopback upstream: byte buffers, no protos), applying
// the grpc request rules (request_rules.h) by full method ("/pkg.Service/Method") or prefix.
//
// Unary calls only: each call is read as one request message and forwarded as a unary call, so
// streaming methods are not supported. status -> finishes at once with the rule's grpc::StatusCode
// (message names the rule, trailing metadata x-aftershock-fault: <id>), the upstream untouched;
// delay_request / delay_response -> waits before forwarding / before answering; truncate_body ->
// cuts the response message to N bytes. Client metadata (except grpc-internal keys) and the
// deadline are passed on; the upstream's status and message come back as they are.
//
//   GrpcFaultProxy proxy(rules, {.listen = "127.0.0.1:0", .upstream = "127.0.0.1:50051"});
//   rules->Set({.id = "g1", .protocol = Protocol::kGrpc, .route = "/pkg.Svc/Get", .share = 0.3,
//               .action = StatusAction{14}});   // UNAVAILABLE
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_GRPC_FAULT_PROXY_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_GRPC_FAULT_PROXY_H_

#include <memory>
#include <string>

#include "framework/request_proxy/request_rules.h"

namespace aftershock::request_proxy {

struct GrpcFaultProxyOptions {
  std::string listen = "127.0.0.1:0";  // loopback; port 0 = any free port
  std::string upstream{};              // loopback host:port
};

class GrpcFaultProxy {
 public:
  // Listens at once; throws std::invalid_argument for non-loopback addresses, std::runtime_error
  // when the server does not start.
  GrpcFaultProxy(std::shared_ptr<RuleTable> rules, GrpcFaultProxyOptions options);
  ~GrpcFaultProxy();
  GrpcFaultProxy(const GrpcFaultProxy&) = delete;
  GrpcFaultProxy& operator=(const GrpcFaultProxy&) = delete;

  int port() const;
  void Stop();  // idempotent: shuts the server down (calls in flight get 2 s), the destructor calls it

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_GRPC_FAULT_PROXY_H_
