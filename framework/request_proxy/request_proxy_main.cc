// aftershock-request-proxy: the HTTP fault proxy and its control API as a program, for a suite that
// puts it between a service it does not modify and that service's upstream.
//
//   aftershock-request-proxy --upstream=127.0.0.1:9100 [--listen=127.0.0.1:0]
//       [--control-listen=127.0.0.1:0] [--port-file=F] [--control-port-file=F] [--seed=N]
//
// Prints "listening <port> control <port>" once both are bound (and writes the port files).
// SIGINT / SIGTERM: clears every rule, stops, exits 0. A bad flag exits 2 naming it.
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "framework/process/port_file.h"
#include "framework/request_proxy/control_api.h"
#include "framework/request_proxy/http_fault_proxy.h"

namespace {

using namespace aftershock::request_proxy;

struct Flags {
  std::string listen = "127.0.0.1:0";
  std::string control_listen = "127.0.0.1:0";
  std::string upstream;
  std::string port_file;
  std::string control_port_file;
  std::optional<std::uint64_t> seed;
};

constexpr char kUsage[] =
    "usage: aftershock-request-proxy --upstream=HOST:PORT [--listen=HOST:PORT] [--control-listen=HOST:PORT]\n"
    "       [--port-file=PATH] [--control-port-file=PATH] [--seed=N]\n";

Flags Parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
      throw std::invalid_argument("unexpected argument '" + arg + "' (flags are --name=value)");
    }
    const std::string name = arg.substr(2, eq - 2), value = arg.substr(eq + 1);
    if (name == "listen") f.listen = value;
    else if (name == "control-listen") f.control_listen = value;
    else if (name == "upstream") f.upstream = value;
    else if (name == "port-file") f.port_file = value;
    else if (name == "control-port-file") f.control_port_file = value;
    else if (name == "seed") {
      std::size_t used = 0;
      try {
        f.seed = std::stoull(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != value.size() || value.empty()) throw std::invalid_argument("bad value '" + value + "' for --seed: not an integer");
    } else {
      throw std::invalid_argument("unknown flag --" + name);
    }
  }
  if (f.upstream.empty()) throw std::invalid_argument("--upstream=HOST:PORT is required");
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  try {
    flags = Parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aftershock-request-proxy: %s\n%s", e.what(), kUsage);
    return 2;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any thread: only sigwait below sees them
  try {
    auto rules = std::make_shared<RuleTable>(flags.seed ? *flags.seed : std::random_device{}());
    HttpFaultProxy proxy({.listen = flags.listen, .upstream = flags.upstream}, rules);
    ControlServer control(flags.control_listen, rules);
    if (!flags.port_file.empty() && !aftershock::process::WritePortFile(flags.port_file, proxy.port())) {
      throw std::runtime_error("cannot write " + flags.port_file);
    }
    if (!flags.control_port_file.empty() && !aftershock::process::WritePortFile(flags.control_port_file, control.port())) {
      throw std::runtime_error("cannot write " + flags.control_port_file);
    }
    std::printf("listening %d control %d upstream %s\n", proxy.port(), control.port(), flags.upstream.c_str());
    std::fflush(stdout);
    int signal = 0;
    sigwait(&signals, &signal);
    rules->ClearAll();  // nothing is faulted from here on, even for requests still in flight
    control.Stop();
    proxy.Stop();
    std::printf("stopped on signal %d\n", signal);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aftershock-request-proxy: %s\n", e.what());
    return 1;
  }
}
