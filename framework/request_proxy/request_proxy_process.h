// RequestProxyProcess: the aftershock-request-proxy program as a child process (child_process.h)
// for tests and suites: started on free loopback ports, ready when Start returns, stopped (SIGTERM:
// the proxy clears its rules) by Stop or the destructor.
//
//   RequestProxyProcess proxy = RequestProxyProcess::Start({.program = kRequestProxyPath,
//       .http_upstream = server.address(), .scratch_dir = scratch.path()});
//   RequestProxyClient client = proxy.client();
//   ... send load to 127.0.0.1:<proxy.http_port()> ...
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_PROXY_PROCESS_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_PROXY_PROCESS_H_

#include <chrono>
#include <optional>
#include <string>

#include "framework/process/child_process.h"
#include "framework/request_proxy/request_proxy_client.h"

namespace aftershock::request_proxy {

struct RequestProxyProcessOptions {
  std::string program = "aftershock-request-proxy";  // a path, or a name looked up in PATH
  std::string http_upstream{};  // loopback host:port; empty = no HTTP proxy
  std::string grpc_upstream{};  // loopback host:port; empty = no gRPC proxy
  std::string scratch_dir{};    // required: the port file and the log go here
  std::optional<std::uint64_t> seed{};  // deterministic share draws
  std::chrono::milliseconds start_timeout = std::chrono::seconds(10);
};

class RequestProxyProcess {
 public:
  // Throws std::runtime_error naming what failed (with the log's path) when the proxy does not come up.
  static RequestProxyProcess Start(const RequestProxyProcessOptions& options);

  int control_port() const { return control_port_; }
  int http_port() const { return http_port_; }  // 0 without an HTTP proxy
  int grpc_port() const { return grpc_port_; }  // 0 without a gRPC proxy
  RequestProxyClient client() const { return RequestProxyClient("127.0.0.1", control_port_); }
  const std::string& log_path() const { return log_path_; }
  process::ChildProcess& child() { return child_; }
  int Stop(std::chrono::milliseconds grace = std::chrono::seconds(5)) { return child_.Stop(grace); }

 private:
  RequestProxyProcess(process::ChildProcess child, std::string log_path)
      : child_(std::move(child)), log_path_(std::move(log_path)) {}

  process::ChildProcess child_;
  std::string log_path_;
  int control_port_ = 0;
  int http_port_ = 0;
  int grpc_port_ = 0;
};

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_PROXY_PROCESS_H_
