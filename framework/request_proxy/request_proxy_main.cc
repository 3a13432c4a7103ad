// aftershock-request-proxy: the HTTP- and gRPC-aware fault proxy program (docs/request-proxy.md).
//
//   aftershock-request-proxy --control-listen=127.0.0.1:0 --http-listen=127.0.0.1:0
//       --http-upstream=127.0.0.1:8080 [--grpc-listen=127.0.0.1:0 --grpc-upstream=127.0.0.1:50051]
//       [--port-file=PATH] [--seed=N]
//
// Prints "request-proxy listening control=... http=... grpc=..." once every listener is up, then
// writes the control port to --port-file (GET /listeners on it names the others). On SIGINT or
// SIGTERM it clears every rule, stops and exits 0.
#include <csignal>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "framework/process/port_file.h"
#include "framework/request_proxy/control_server.h"
#include "framework/request_proxy/grpc_fault_proxy.h"
#include "framework/request_proxy/http_fault_proxy.h"
#include "framework/request_proxy/request_rules.h"
#include "framework/process/stop_signals.h"

namespace {

using namespace aftershock::request_proxy;

class FlagError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

std::map<std::string, std::string> ParseFlags(int argc, char** argv) {
  static const char* const kKnown[] = {"http-listen", "http-upstream", "grpc-listen", "grpc-upstream",
                                       "control-listen", "port-file", "seed"};
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) throw FlagError("unexpected argument '" + arg + "' (flags are --name=value)");
    const auto eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    bool known = false;
    for (const char* k : kKnown) known = known || name == k;
    if (!known) throw FlagError("unknown flag --" + name);
    if (eq == std::string::npos) throw FlagError("flag --" + name + " needs a value (--" + name + "=...)");
    if (flags.count(name) != 0) throw FlagError("flag --" + name + " given twice");
    flags[name] = arg.substr(eq + 1);
  }
  return flags;
}

std::string Address(const std::string& listen, int port) {
  return listen.substr(0, listen.rfind(':')) + ":" + std::to_string(port);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto flags = ParseFlags(argc, argv);
    auto flag = [&](const char* name) -> std::string {
      const auto it = flags.find(name);
      return it == flags.end() ? "" : it->second;
    };
    if (flag("control-listen").empty()) throw FlagError("--control-listen is required");
    const bool http = !flag("http-upstream").empty() || !flag("http-listen").empty();
    const bool grpc = !flag("grpc-upstream").empty() || !flag("grpc-listen").empty();
    if (http && (flag("http-upstream").empty() || flag("http-listen").empty())) {
      throw FlagError("--http-listen and --http-upstream go together");
    }
    if (grpc && (flag("grpc-upstream").empty() || flag("grpc-listen").empty())) {
      throw FlagError("--grpc-listen and --grpc-upstream go together");
    }
    if (!http && !grpc) throw FlagError("give --http-listen/--http-upstream, --grpc-listen/--grpc-upstream, or both");
    std::optional<std::uint64_t> seed;
    if (!flag("seed").empty()) {
      std::size_t used = 0;
      try {
        seed = std::stoull(flag("seed"), &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != flag("seed").size() || used == 0) throw FlagError("bad value '" + flag("seed") + "' for --seed: not an integer");
    }

    // Before any thread starts, so that only Wait() below receives SIGTERM and SIGINT.
    const aftershock::process::StopSignals stop = aftershock::process::StopSignals::Block();

    auto rules = std::make_shared<RuleTable>(seed ? RuleTable::SeededRng(*seed) : RuleTable::RandomRng());
    nlohmann::json listeners = nlohmann::json::object();
    std::unique_ptr<HttpFaultProxy> http_proxy;
    std::unique_ptr<GrpcFaultProxy> grpc_proxy;
    if (http) {
      http_proxy = std::make_unique<HttpFaultProxy>(
          rules, HttpFaultProxyOptions{.listen = flag("http-listen"), .upstream = flag("http-upstream")});
      listeners["http"] = Address(flag("http-listen"), http_proxy->port());
    }
    if (grpc) {
      grpc_proxy = std::make_unique<GrpcFaultProxy>(
          rules, GrpcFaultProxyOptions{.listen = flag("grpc-listen"), .upstream = flag("grpc-upstream")});
      listeners["grpc"] = Address(flag("grpc-listen"), grpc_proxy->port());
    }
    ControlServer control(rules, {.listen = flag("control-listen"), .listeners = listeners});
    listeners["control"] = Address(flag("control-listen"), control.port());
    std::printf("request-proxy listening control=%s http=%s grpc=%s\n", listeners["control"].get<std::string>().c_str(),
                listeners.value("http", std::string("-")).c_str(), listeners.value("grpc", std::string("-")).c_str());
    std::fflush(stdout);
    if (!flag("port-file").empty() && !aftershock::process::WritePortFile(flag("port-file"), control.port())) {
      throw std::runtime_error("cannot write --port-file '" + flag("port-file") + "'");
    }

    const int received = stop.Wait();
    const std::size_t cleared = rules->ClearAll();
    control.Stop();
    if (grpc_proxy) grpc_proxy->Stop();
    if (http_proxy) http_proxy->Stop();
    std::printf("request-proxy stopping on signal %d: cleared %zu rule(s)\n", received, cleared);
    return 0;
  } catch (const FlagError& e) {
    std::fprintf(stderr, "aftershock-request-proxy: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aftershock-request-proxy: %s\n", e.what());
    return 1;
  }
}
