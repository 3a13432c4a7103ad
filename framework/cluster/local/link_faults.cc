#include "framework/cluster/local/link_faults.h"

#include <sstream>

#include "framework/cluster/local/cluster_error.h"
#include "framework/cluster/local/internal/action_result.h"
#include "framework/cluster/local/proto_conversion.h"

namespace aftershock::cluster {
namespace {

// "a" or "pg-a" -> "a".
std::string MemberKey(const std::string& name) { return name.rfind("pg-", 0) == 0 ? name.substr(3) : name; }

}  // namespace

void LinkFaultSet::Add(std::string member, std::unique_ptr<FaultProxy> proxy) {
  links_.emplace_back(std::move(member), std::move(proxy));
}

v1::ActionResult LinkFaultSet::Set(const std::string& member, const ProxyFaults& faults) {
  const std::int64_t started = internal::UnixMs();
  const std::string key = MemberKey(member);
  if (links_.empty()) {
    throw ClusterError(grpc::StatusCode::FAILED_PRECONDITION, "this cluster has no proxies on its " + what_ + " links");
  }
  bool known = key.empty();
  std::string members;
  for (const auto& [name, proxy] : links_) {
    known = known || name == key;
    members += (members.empty() ? "" : ", ") + std::string("pg-") + name;
  }
  if (!known) throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, "no database member '" + member + "' (" + members + ")");
  if (AnyFault(faults)) fault_applied_();
  std::string targets;
  for (auto& [name, proxy] : links_) {
    if (!key.empty() && name != key) continue;
    proxy->SetFaults(faults);
    targets += (targets.empty() ? "" : ",") + std::string("pg-") + name;
  }
  std::ostringstream summary;
  summary << what_ << " link faults on " << targets << ": latency " << faults.latency.count() << " ms, jitter "
          << faults.jitter.count() << " ms" << (faults.blackhole ? ", blackhole" : "") << (faults.reset ? ", reset" : "");
  if (faults.bandwidth_bytes_per_second > 0) summary << ", " << faults.bandwidth_bytes_per_second << " B/s";
  return internal::Result(started, targets, summary.str());
}

v1::ActionResult LinkFaultSet::Clear() {
  const std::int64_t started = internal::UnixMs();
  for (auto& [name, proxy] : links_) proxy->ClearFaults();
  return internal::Result(started, "all", "cleared the faults on every " + what_ + " link");
}

std::vector<std::string> LinkFaultSet::InForce() const {
  std::vector<std::string> out;
  for (const auto& [name, proxy] : links_) {
    if (AnyFault(proxy->faults())) {
      out.push_back("pg-" + name + " {" + ProxyFaultsToProto(proxy->faults()).ShortDebugString() + "}");
    }
  }
  return out;
}

const FaultProxy* LinkFaultSet::ProxyOf(const std::string& member) const {
  for (const auto& [name, proxy] : links_) {
    if (name == member) return proxy.get();
  }
  return nullptr;
}

}  // namespace aftershock::cluster
