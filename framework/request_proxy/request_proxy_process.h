// RequestProxyProcess: starts aftershock-request-proxy for a test or suite and owns it: waits
// (bounded) for both port files and the control API's /healthz, throws naming the log and its last
// lines when it never gets ready; destruction stops it by PID (SIGTERM: it clears its rules).
//
//   RequestProxyProcess proxy = RequestProxyProcess::Start({.upstream = metadata.address()});
//   service args: "--metadata=" + proxy.address();
//   RequestProxyClient client(proxy.control_address());
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_PROXY_PROCESS_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_PROXY_PROCESS_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "framework/process/child_process.h"
#include "framework/process/scratch_dir.h"

namespace aftershock::request_proxy {

// The aftershock-request-proxy this library was built with.
std::string DefaultRequestProxyBinary();

struct RequestProxyProcessOptions {
  std::string upstream;                   // host:port (loopback); required
  std::optional<std::uint64_t> seed{};    // the share draw's seed (unset: random)
  std::string log_path{};                 // empty: in the scratch directory
  std::string binary = DefaultRequestProxyBinary();
  std::chrono::seconds ready_timeout{20};
};

class RequestProxyProcess {
 public:
  static RequestProxyProcess Start(RequestProxyProcessOptions options);
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string control_address() const { return "127.0.0.1:" + std::to_string(control_port_); }
  pid_t pid() const { return child_.pid(); }
  const std::string& log_path() const { return log_path_; }
  bool Alive() { return child_.Running(); }
  int Stop(std::chrono::milliseconds grace = std::chrono::seconds(5)) { return child_.Stop(grace); }

 private:
  RequestProxyProcess(process::ScratchDir scratch, process::ChildProcess child, std::string log, int port, int control)
      : scratch_(std::move(scratch)), child_(std::move(child)), log_path_(std::move(log)), port_(port), control_port_(control) {}
  process::ScratchDir scratch_;  // before child_: the process stops before its files go
  process::ChildProcess child_;
  std::string log_path_;
  int port_ = 0, control_port_ = 0;
};

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_PROXY_PROCESS_H_
