#include "framework/cluster/local/local_cluster_driver.h"

#include <algorithm>
#include <regex>

#include "framework/cluster/internal/pg_processes.h"

namespace aftershock::cluster {
namespace {

chaos::ActionOutcome Outcome(const v1::ActionResult& result) { return {result.summary(), result.target()}; }

// A replica's instance on this driver is its process: "pid 1234".
std::string PidInstance(int pid) { return pid > 0 ? "pid " + std::to_string(pid) : ""; }

}  // namespace

chaos::ClusterState ToClusterState(const v1::ClusterStatus& status) {
  chaos::ClusterState out;
  out.steady = status.steady();
  out.not_steady_reason = status.not_steady_reason();
  out.primary = status.primary();
  out.replication = status.replication();
  for (const v1::Replica& r : status.replicas()) {
    out.replicas.push_back({.name = r.name(),
                            .node = r.node(),
                            .address = r.address(),
                            .instance = PidInstance(r.pid()),
                            .ready = r.ready(),
                            .node_cordoned = r.node_cordoned(),
                            .defects = r.defects()});
  }
  for (const chaos::ReplicaState& r : out.replicas) {
    const bool listed = std::find(out.cordoned_nodes.begin(), out.cordoned_nodes.end(), r.node) != out.cordoned_nodes.end();
    if (r.node_cordoned && !listed) out.cordoned_nodes.push_back(r.node);
  }
  for (const v1::DatabaseMember& m : status.members()) {
    out.members.push_back({.name = m.name(),
                           .role = m.role(),
                           .state = m.state(),
                           .service_port = m.proxy_port(),
                           .replication_port = m.replication_proxy_port()});
  }
  return out;
}

v1::LinkFaults ToLinkFaults(const chaos::LinkFault& fault) {
  v1::LinkFaults out;
  out.set_latency_ms(static_cast<std::uint32_t>(fault.latency.count()));
  out.set_jitter_ms(static_cast<std::uint32_t>(fault.jitter.count()));
  out.set_blackhole(fault.blackhole);
  out.set_reset(fault.reset);
  out.set_bandwidth_bytes_per_second(fault.bandwidth_bytes_per_second);
  return out;
}

chaos::ClusterState LocalClusterDriver::Observe() { return ToClusterState(client_.Status()); }
void LocalClusterDriver::WaitSteady(std::chrono::milliseconds timeout) { client_.WaitSteady(timeout); }
bool LocalClusterDriver::InstanceRunning(const std::string& instance) {
  std::smatch m;
  static const std::regex kPid("pid ([0-9]{1,9})");
  if (!std::regex_match(instance, m, kPid)) {
    throw std::invalid_argument("LocalClusterDriver: '" + instance + "' is not an instance of this driver (pid N)");
  }
  // The supervisor's replicas run on this machine, so this process's /proc sees them.
  return internal::ProcessAlive(std::stoi(m[1]));
}

chaos::ActionOutcome LocalClusterDriver::KillReplica(const std::string& name) {
  chaos::ActionOutcome outcome = Outcome(client_.KillReplica(name));
  // The supervisor names the process it killed in its summary: "killed replica b (pid 1234)".
  std::smatch m;
  static const std::regex kKilledPid("pid ([0-9]{1,9})");
  if (std::regex_search(outcome.summary, m, kKilledPid)) outcome.instance = PidInstance(std::stoi(m[1]));
  return outcome;
}
chaos::ActionOutcome LocalClusterDriver::KillDatabasePrimary() { return Outcome(client_.KillDatabasePrimary()); }
chaos::ActionOutcome LocalClusterDriver::SetDatabaseLinkFaults(const std::string& member,
                                                               const chaos::LinkFault& fault) {
  return Outcome(client_.SetDatabaseLinkFaults(member, ToLinkFaults(fault)));
}
chaos::ActionOutcome LocalClusterDriver::ClearDatabaseLinkFaults() { return Outcome(client_.ClearDatabaseLinkFaults()); }
chaos::ActionOutcome LocalClusterDriver::SetReplicationLinkFaults(const std::string& member,
                                                                  const chaos::LinkFault& fault) {
  return Outcome(client_.SetReplicationLinkFaults(member, ToLinkFaults(fault)));
}
chaos::ActionOutcome LocalClusterDriver::ClearReplicationLinkFaults() {
  return Outcome(client_.ClearReplicationLinkFaults());
}
chaos::ActionOutcome LocalClusterDriver::SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes) {
  return Outcome(client_.SetReplicationMode(synchronous, maximum_lag_on_failover_bytes));
}
chaos::ActionOutcome LocalClusterDriver::RollingRestart(std::chrono::milliseconds grace,
                                                        std::chrono::milliseconds min_ready) {
  v1::RollingRestartRequest request;
  request.set_grace_ms(static_cast<std::uint32_t>(grace.count()));
  request.set_min_ready_ms(static_cast<std::uint32_t>(min_ready.count()));
  return Outcome(client_.RollingRestart(request));
}
chaos::ActionOutcome LocalClusterDriver::Drain(const std::string& node, std::chrono::milliseconds timeout) {
  return Outcome(client_.Drain(node, timeout));
}
chaos::ActionOutcome LocalClusterDriver::Uncordon(const std::string& node) { return Outcome(client_.Uncordon(node)); }
chaos::ActionOutcome LocalClusterDriver::SetReplicaDefects(const std::string& replica,
                                                           const std::map<std::string, std::string>& defects) {
  v1::ReplicaDefectsRequest request;
  request.set_replica(replica);
  for (const auto& [key, value] : defects) (*request.mutable_defects())[key] = value;
  return Outcome(client_.SetReplicaDefects(request));
}

}  // namespace aftershock::cluster
