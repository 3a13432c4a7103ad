// LocalClusterDriver: the local cluster as a chaos::ClusterDriver - every action and observation
// the cluster faults need, through the supervisor's control API (ClusterClient). A replica's
// instance is its process ("pid 1234"), checked in this machine's /proc.
//
//   cluster::LocalClusterDriver driver(cluster::ClusterClient::Attach());
//   auto kill = std::make_shared<chaos::PrimaryKillFault>(driver);
//   chaos::ClusterState state = driver.Observe();
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_LOCAL_CLUSTER_DRIVER_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_LOCAL_CLUSTER_DRIVER_H_

#include <map>
#include <string>

#include "framework/chaos/cluster_driver.h"
#include "framework/cluster/control/cluster_client.h"

namespace aftershock::cluster {

class LocalClusterDriver : public chaos::ClusterDriver {
 public:
  explicit LocalClusterDriver(ClusterClient client) : client_(std::move(client)) {}

  chaos::ClusterState Observe() override;
  void WaitSteady(std::chrono::milliseconds timeout) override;
  // "pid N": whether that process is alive on this machine.
  bool InstanceRunning(const std::string& instance) override;
  chaos::ActionOutcome KillReplica(const std::string& name) override;
  chaos::ActionOutcome KillDatabasePrimary() override;
  chaos::ActionOutcome SetDatabaseLinkFaults(const std::string& member, const chaos::LinkFault& fault) override;
  chaos::ActionOutcome ClearDatabaseLinkFaults() override;
  chaos::ActionOutcome SetReplicationLinkFaults(const std::string& member, const chaos::LinkFault& fault) override;
  chaos::ActionOutcome ClearReplicationLinkFaults() override;
  chaos::ActionOutcome SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes) override;
  chaos::ActionOutcome RollingRestart(std::chrono::milliseconds grace, std::chrono::milliseconds min_ready) override;
  chaos::ActionOutcome Drain(const std::string& node, std::chrono::milliseconds timeout) override;
  chaos::ActionOutcome Uncordon(const std::string& node) override;
  chaos::ActionOutcome SetReplicaDefects(const std::string& replica,
                                         const std::map<std::string, std::string>& defects) override;

  ClusterClient& client() { return client_; }

 private:
  ClusterClient client_;
};

// The control API's status as the driver interface's state.
chaos::ClusterState ToClusterState(const v1::ClusterStatus& status);
v1::LinkFaults ToLinkFaults(const chaos::LinkFault& fault);

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_LOCAL_CLUSTER_DRIVER_H_
