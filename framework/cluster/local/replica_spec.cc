#include "framework/cluster/local/replica_spec.h"

#include <set>
#include <sstream>

namespace aftershock::cluster {
namespace {

const std::set<std::string>& KnownPlaceholders() {
  static const std::set<std::string> known = {"port", "address", "conninfo", "name", "node", "zone", "grace_seconds"};
  return known;
}

// Calls `each(name)` for every {name} in `arg`; returns false at an unclosed '{'.
template <typename Each>
bool ForEachPlaceholder(const std::string& arg, Each each) {
  std::size_t at = 0;
  while ((at = arg.find('{', at)) != std::string::npos) {
    const std::size_t end = arg.find('}', at);
    if (end == std::string::npos) return false;
    each(arg.substr(at + 1, end - at - 1));
    at = end + 1;
  }
  return true;
}

}  // namespace

std::string ReplicaName(int index) { return std::string(1, static_cast<char>('a' + index)); }

std::string ValidateReplicaSpec(const ReplicaSpec& spec) {
  if (spec.binary.empty()) return "replica spec: no binary given";
  if (spec.count < 1 || spec.count > kMaxReplicas) {
    return "replica spec: count " + std::to_string(spec.count) + " is out of range (1.." +
           std::to_string(kMaxReplicas) + ": one letter a..z per replica)";
  }
  if (spec.grace.count() < 0) return "replica spec: negative grace";
  if (spec.probe.kind == ReadinessProbe::Kind::kHttp && (spec.probe.http_path.empty() || spec.probe.http_path[0] != '/')) {
    return "replica spec: the HTTP readiness path must start with '/', not '" + spec.probe.http_path + "'";
  }
  for (const std::string& arg : spec.args) {
    std::string unknown;
    const bool closed = ForEachPlaceholder(arg, [&](const std::string& name) {
      if (unknown.empty() && !KnownPlaceholders().count(name)) unknown = name;
    });
    if (!closed) return "replica spec: argument '" + arg + "' has a '{' without '}'";
    if (!unknown.empty()) {
      return "replica spec: argument '" + arg + "' names an unknown placeholder {" + unknown +
             "} (known: {port} {address} {conninfo} {name} {node} {zone} {grace_seconds})";
    }
  }
  return "";
}

std::vector<std::string> ExpandReplicaArgs(const std::vector<std::string>& args, const ReplicaPlaceholders& values) {
  std::ostringstream grace;
  grace << static_cast<double>(values.grace.count()) / 1000.0;
  const std::map<std::string, std::string> by_name = {
      {"port", std::to_string(values.port)},
      {"address", "127.0.0.1:" + std::to_string(values.port)},
      {"conninfo", values.conninfo},
      {"name", values.name},
      {"node", values.node},
      {"zone", values.zone},
      {"grace_seconds", grace.str()},
  };
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    std::string expanded;
    std::size_t at = 0;
    while (true) {
      const std::size_t open = arg.find('{', at);
      const std::size_t close = open == std::string::npos ? open : arg.find('}', open);
      if (close == std::string::npos) {
        expanded += arg.substr(at);
        break;
      }
      const auto it = by_name.find(arg.substr(open + 1, close - open - 1));
      expanded += arg.substr(at, open - at) + (it == by_name.end() ? arg.substr(open, close - open + 1) : it->second);
      at = close + 1;
    }
    out.push_back(std::move(expanded));
  }
  return out;
}

}  // namespace aftershock::cluster
