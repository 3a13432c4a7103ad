#include "framework/request_proxy/request_proxy_process.h"

#include <stdexcept>
#include <thread>

#include "framework/net/http_exchange.h"
#include "framework/net/loopback.h"
#include "framework/process/log_tail.h"
#include "framework/process/port_file.h"

namespace aftershock::request_proxy {

std::string DefaultRequestProxyBinary() { return AFTERSHOCK_REQUEST_PROXY_BINARY; }

RequestProxyProcess RequestProxyProcess::Start(RequestProxyProcessOptions options) {
  net::RequireLoopbackAddress(options.upstream, "request proxy upstream");
  process::ScratchDir scratch = process::ScratchDir::Create("aftershock-request-proxy");
  const std::string port_file = scratch.path() + "/port";
  const std::string control_file = scratch.path() + "/control-port";
  const std::string log = options.log_path.empty() ? scratch.path() + "/request-proxy.log" : options.log_path;
  process::ChildOptions child_options;
  child_options.program = options.binary;
  child_options.args = {"--upstream=" + options.upstream, "--port-file=" + port_file,
                        "--control-port-file=" + control_file};
  if (options.seed) child_options.args.push_back("--seed=" + std::to_string(*options.seed));
  child_options.log_path = log;
  process::ChildProcess child = process::ChildProcess::Start(child_options);
  const auto deadline = std::chrono::steady_clock::now() + options.ready_timeout;
  auto fail = [&](const std::string& why) {
    child.Stop(std::chrono::seconds(2));
    return std::runtime_error("aftershock-request-proxy (pid " + std::to_string(child.pid()) + ") " + why +
                              "; log: " + log + "\n--- last lines ---\n" + process::TailOfFile(log, 20));
  };
  const process::PortFileWait port = process::WaitForPortFile(child, port_file, deadline);
  if (!port.port) throw fail(port.failure);
  const process::PortFileWait control = process::WaitForPortFile(child, control_file, deadline);
  if (!control.port) throw fail(control.failure);
  // Bounded by the deadline: the control API answers /healthz once it serves.
  for (int i = 0; i < 10000; ++i) {
    const auto r = net::HttpExchange({.port = *control.port, .target = "/healthz"}, std::chrono::milliseconds(500));
    if (r.success()) {
      return RequestProxyProcess(std::move(scratch), std::move(child), log, *port.port, *control.port);
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw fail("never answered /healthz on its control port " + std::to_string(*control.port));
}

}  // namespace aftershock::request_proxy
