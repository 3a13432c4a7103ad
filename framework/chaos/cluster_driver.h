// ClusterDriver: what the cluster faults need from a cluster - its actions (kill a replica or the
// database primary, link faults, the replication mode, rolling restart, drain/uncordon, seeded
// defects) and its observations (state, steady) - in terms that know neither the local cluster's
// control API nor Kubernetes. The local cluster's client implements it
// (framework/cluster/local/local_cluster_driver.h), and so does the Kubernetes driver (kubectl +
// CloudNativePG + Chaos Mesh: framework/cluster/kubernetes/kubernetes_cluster_driver.h);
// fixtures::ClusterScenario picks one (--aftershock_cluster_driver).
//
//   cluster::LocalClusterDriver driver(cluster::ClusterClient::Attach());
//   auto kill = std::make_shared<chaos::PrimaryKillFault>(driver);
//   ClusterState state = driver.Observe();
//   for (const ReplicaState& r : state.replicas) ...
//
// Every call may throw (std::runtime_error, naming what failed); actions answer with what they did.
#ifndef AFTERSHOCK_FRAMEWORK_CHAOS_CLUSTER_DRIVER_H_
#define AFTERSHOCK_FRAMEWORK_CHAOS_CLUSTER_DRIVER_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace aftershock::chaos {

struct ReplicaState {
  // "a" on the local cluster, where a replica keeps its name through restarts; on Kubernetes the
  // pod's name, so a replaced replica comes back under another name.
  std::string name{};
  std::string node{};     // "node-a"
  std::string address{};  // "127.0.0.1:PORT"
  // What runs the replica now, in the driver's words: "pid 1234" (a local process), "pod <uid>" (a
  // Kubernetes pod). A restarted or replaced replica has another; "" when none runs. Faults compare
  // these and ask the driver (InstanceRunning) instead of looking at processes themselves, so the
  // same fault confirms on any driver.
  std::string instance{};
  bool ready = false;
  bool node_cordoned = false;
  std::string defects{};  // the seeded defects in force (text), "" none
};

struct DatabaseMemberState {
  std::string name{};   // "pg-a"
  std::string role{};   // leader | sync_standby | replica | ""
  std::string state{};  // running | stopped | ...
  // Where a probe reaches the member on the service -> database path and on the replication path;
  // 0 when the driver has no such port.
  int service_port = 0;
  int replication_port = 0;
};

struct ClusterState {
  bool steady = false;
  std::string not_steady_reason{};
  std::string primary{};      // "pg-a", "" none
  std::string replication{};  // "synchronous" | "asynchronous"
  std::vector<ReplicaState> replicas{};
  std::vector<DatabaseMemberState> members{};
  // The cordoned nodes by their scenario names ("node-b"), whether or not a replica is on them: on
  // Kubernetes a drained node's pod is rescheduled onto another node.
  std::vector<std::string> cordoned_nodes{};
};

struct LinkFault {
  std::chrono::milliseconds latency{0};
  std::chrono::milliseconds jitter{0};
  bool blackhole = false;
  bool reset = false;
  std::uint64_t bandwidth_bytes_per_second = 0;
};

// What an action did: "killed replica b (pid 1234)", what it acted on ("b", "pg-a") and, for an
// action on a replica, the instance it acted on ("pid 1234", "pod <uid>"; "" otherwise).
struct ActionOutcome {
  std::string summary{};
  std::string target{};
  std::string instance{};
};

class ClusterDriver {
 public:
  virtual ~ClusterDriver() = default;

  virtual ClusterState Observe() = 0;
  // Throws after `timeout`, naming what is not steady.
  virtual void WaitSteady(std::chrono::milliseconds timeout) = 0;

  // Whether `instance` (a ReplicaState::instance this driver reported) still runs: the local process
  // is alive, the pod still exists and is not being deleted.
  virtual bool InstanceRunning(const std::string& instance) = 0;

  // "" = a random ready replica; the outcome names the replica (target) and the instance killed.
  virtual ActionOutcome KillReplica(const std::string& name) = 0;
  virtual ActionOutcome KillDatabasePrimary() = 0;
  // member "" = every member's link.
  virtual ActionOutcome SetDatabaseLinkFaults(const std::string& member, const LinkFault& fault) = 0;
  virtual ActionOutcome ClearDatabaseLinkFaults() = 0;
  virtual ActionOutcome SetReplicationLinkFaults(const std::string& member, const LinkFault& fault) = 0;
  virtual ActionOutcome ClearReplicationLinkFaults() = 0;
  // maximum_lag_on_failover_bytes 0 = the database's default.
  virtual ActionOutcome SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes) = 0;
  virtual ActionOutcome RollingRestart(std::chrono::milliseconds grace, std::chrono::milliseconds min_ready) = 0;
  // timeout 0 = the driver's default.
  virtual ActionOutcome Drain(const std::string& node, std::chrono::milliseconds timeout) = 0;
  virtual ActionOutcome Uncordon(const std::string& node) = 0;
  // replica "" = all; the target's defects, opaque to the driver (empty = none).
  virtual ActionOutcome SetReplicaDefects(const std::string& replica,
                                          const std::map<std::string, std::string>& defects) = 0;
};

}  // namespace aftershock::chaos

#endif  // AFTERSHOCK_FRAMEWORK_CHAOS_CLUSTER_DRIVER_H_
