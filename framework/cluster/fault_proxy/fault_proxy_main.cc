// aftershock-fault-proxy: runs one FaultProxy until SIGINT or SIGTERM, for manual experiments.
//
//   aftershock-fault-proxy --listen 127.0.0.1:15432 --upstream 127.0.0.1:5432 [--latency-ms 100]
//       [--jitter-ms 20] [--bandwidth 100000] [--blackhole] [--name pg]
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include "framework/cluster/fault_proxy/fault_proxy.h"
#include "framework/process/stop_signals.h"

namespace {

using aftershock::cluster::FaultProxy;
using aftershock::cluster::ProxyFaults;

std::pair<std::string, std::uint16_t> ParseHostPort(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument("expected HOST:PORT, got '" + text + "'");
  const unsigned long port = std::stoul(text.substr(colon + 1));
  if (port > 65535) throw std::invalid_argument("port out of range in '" + text + "'");
  return {text.substr(0, colon), static_cast<std::uint16_t>(port)};
}

int Usage() {
  std::fprintf(stderr,
               "usage: aftershock-fault-proxy --listen 127.0.0.1:PORT --upstream 127.0.0.1:PORT\n"
               "       [--name NAME] [--latency-ms N] [--jitter-ms N] [--bandwidth BYTES_PER_S] [--blackhole]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string name = "fault-proxy";
    std::string listen;
    std::string upstream;
    ProxyFaults faults;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--listen") {
        listen = value();
      } else if (arg == "--upstream") {
        upstream = value();
      } else if (arg == "--name") {
        name = value();
      } else if (arg == "--latency-ms") {
        faults.latency = std::chrono::milliseconds(std::stoll(value()));
      } else if (arg == "--jitter-ms") {
        faults.jitter = std::chrono::milliseconds(std::stoll(value()));
      } else if (arg == "--bandwidth") {
        faults.bandwidth_bytes_per_second = std::stoull(value());
      } else if (arg == "--blackhole") {
        faults.blackhole = true;
      } else {
        return Usage();
      }
    }
    if (listen.empty() || upstream.empty()) return Usage();

    // Before the proxy thread starts, so that only Wait() below receives SIGTERM and SIGINT.
    const aftershock::process::StopSignals stop = aftershock::process::StopSignals::Block();

    const auto [listen_host, listen_port] = ParseHostPort(listen);
    const auto [upstream_host, upstream_port] = ParseHostPort(upstream);
    auto proxy = FaultProxy::Start(name, listen_host, listen_port, upstream_host, upstream_port);
    proxy->SetFaults(faults);
    std::printf("%s listening on %s:%u -> %s:%u\n", name.c_str(), listen_host.c_str(), proxy->port(),
                upstream_host.c_str(), upstream_port);
    std::fflush(stdout);

    const int received = stop.Wait();
    const auto stats = proxy->stats();
    std::printf("stopping on signal %d: accepted=%llu bytes_up=%llu bytes_down=%llu resets=%llu\n", received,
                static_cast<unsigned long long>(stats.accepted), static_cast<unsigned long long>(stats.bytes_up),
                static_cast<unsigned long long>(stats.bytes_down), static_cast<unsigned long long>(stats.resets));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aftershock-fault-proxy: %s\n", e.what());
    return 1;
  }
}
