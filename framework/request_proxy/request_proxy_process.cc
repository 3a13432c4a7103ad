#include "framework/request_proxy/request_proxy_process.h"

#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "framework/net/loopback.h"
#include "framework/process/port_file.h"

namespace aftershock::request_proxy {
namespace {

int PortOf(const nlohmann::json& listeners, const char* key) {
  if (!listeners.contains(key)) return 0;
  const auto split = net::SplitHostPort(listeners.at(key).get<std::string>());
  return split ? split->port : 0;
}

}  // namespace

RequestProxyProcess RequestProxyProcess::Start(const RequestProxyProcessOptions& options) {
  if (options.scratch_dir.empty()) throw std::invalid_argument("RequestProxyProcess: 'scratch_dir' is required");
  if (options.http_upstream.empty() && options.grpc_upstream.empty()) {
    throw std::invalid_argument("RequestProxyProcess: give 'http_upstream', 'grpc_upstream' or both");
  }
  const std::string port_file = options.scratch_dir + "/request-proxy.port";
  const std::string log_path = options.scratch_dir + "/request-proxy.log";
  // A scratch folder that is kept (a scenario's artifacts) still holds the last run's port file: read
  // before the new proxy writes its own, it names a port nobody listens on any more.
  std::error_code ignored;
  std::filesystem::remove(port_file, ignored);
  process::ChildOptions child;
  child.program = options.program;
  child.log_path = log_path;
  child.args = {"--control-listen=127.0.0.1:0", "--port-file=" + port_file};
  if (!options.http_upstream.empty()) {
    child.args.push_back("--http-listen=127.0.0.1:0");
    child.args.push_back("--http-upstream=" + options.http_upstream);
  }
  if (!options.grpc_upstream.empty()) {
    child.args.push_back("--grpc-listen=127.0.0.1:0");
    child.args.push_back("--grpc-upstream=" + options.grpc_upstream);
  }
  if (options.seed) child.args.push_back("--seed=" + std::to_string(*options.seed));
  RequestProxyProcess proxy(process::ChildProcess::Start(child), log_path);
  const process::PortFileWait wait =
      process::WaitForPortFile(proxy.child_, port_file, std::chrono::steady_clock::now() + options.start_timeout);
  if (!wait.port) throw std::runtime_error("aftershock-request-proxy " + wait.failure + " (log: " + log_path + ")");
  proxy.control_port_ = *wait.port;
  const nlohmann::json listeners = proxy.client().Listeners();
  proxy.http_port_ = PortOf(listeners, "http");
  proxy.grpc_port_ = PortOf(listeners, "grpc");
  return proxy;
}

}  // namespace aftershock::request_proxy
