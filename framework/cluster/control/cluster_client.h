// ClusterClient: how a test process or the CLI talks to a running aftershock-cluster supervisor.
//
// Attach() reads the state file ($AFTERSHOCK_CLUSTER_STATE, else /tmp/aftershock-cluster/state) for
// the control socket; every method is one ClusterControl RPC with a bounded deadline, returns the
// proto message and throws ClusterClientError (a std::runtime_error carrying the gRPC code) with
// the status text on failure.
//
//   ClusterClient cluster = ClusterClient::Attach();
//   cluster.WaitSteady(std::chrono::seconds(60));
//   std::vector<std::string> targets = cluster.ReplicaAddresses();   // "127.0.0.1:PORT" each
//   cluster.KillReplica("b");
//   v1::ClusterStatus status = cluster.Status();
//
// FaultLeaseHolder holds the supervisor's fault lease while it lives (a renewer thread), so every
// fault applied meanwhile is reverted by the supervisor within seconds if this process dies;
// FaultsInForce / WaitUntilClean are the clean check a scenario runs before it starts:
//
//   if (std::string dirty = WaitUntilClean(cluster, std::chrono::seconds(20)); !dirty.empty()) FAIL() << dirty;
//   FaultLeaseHolder lease(cluster, {.holder = "ha_suite db-partition"});   // renews every 1 s, TTL 5 s
//   cluster.SetDatabaseLinkFaults("", blackhole);
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_CLUSTER_CLIENT_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_CLUSTER_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "framework/cluster/control/cluster_control.grpc.pb.h"
#include "framework/cluster/control/internal/state_file.h"

namespace aftershock::cluster {

class ClusterClientError : public std::runtime_error {
 public:
  ClusterClientError(grpc::StatusCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  grpc::StatusCode code() const { return code_; }

 private:
  grpc::StatusCode code_;
};

class ClusterClient {
 public:
  // From the state file at internal::DefaultStateFilePath(); throws std::runtime_error when absent.
  static ClusterClient Attach();
  static ClusterClient Attach(const std::string& state_path);
  // Straight to a socket (no state file; ReplicaAddresses() then asks Status()).
  static ClusterClient Connect(const std::string& socket_path);

  v1::ClusterStatus Status();
  v1::ClusterStatus WaitSteady(std::chrono::milliseconds timeout);
  v1::ActionResult KillReplica(const std::string& name = "");
  v1::ActionResult KillDatabasePrimary();
  v1::ActionResult SetDatabaseLinkFaults(const std::string& member, const v1::LinkFaults& faults);
  v1::ActionResult ClearDatabaseLinkFaults();
  v1::ActionResult SetReplicationLinkFaults(const std::string& member, const v1::LinkFaults& faults);
  v1::ActionResult ClearReplicationLinkFaults();
  // Waits until the leader applied the mode (the supervisor allows 60 s).
  v1::ActionResult SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes = 0);
  v1::ActionResult RollingRestart(const v1::RollingRestartRequest& request = {});
  v1::ActionResult Drain(const std::string& node, std::chrono::milliseconds timeout = std::chrono::milliseconds(0),
                         std::chrono::milliseconds grace = std::chrono::milliseconds(0));
  v1::ActionResult Uncordon(const std::string& node);
  v1::ActionResult SetReplicaDefects(const v1::ReplicaDefectsRequest& request);
  v1::ActionResult CollectArtifacts(const std::string& directory);
  // 0 keeps the supervisor's lease length.
  v1::ActionResult RenewLease(std::chrono::milliseconds lease = std::chrono::milliseconds(0));
  // The fault lease (see cluster_control.proto); FaultLeaseHolder renews it for you.
  v1::ActionResult RenewFaultLease(const std::string& holder, std::chrono::milliseconds ttl,
                                   const std::string& artifacts_dir = "");
  v1::ActionResult ReleaseFaultLease(const std::string& holder);
  v1::ActionResult Shutdown();

  // "127.0.0.1:PORT" of replicas a, b, c (stable across restarts).
  std::vector<std::string> ReplicaAddresses();
  // The state file as read by Attach() (empty fields after Connect()).
  const internal::ClusterStateFile& state() const { return state_; }
  const std::string& socket_path() const { return socket_path_; }

 private:
  ClusterClient(std::string socket_path, internal::ClusterStateFile state);

  template <typename Request, typename Response, typename Method>
  Response Call(const char* name, Method method, const Request& request, std::chrono::milliseconds deadline);

  std::string socket_path_;
  internal::ClusterStateFile state_;
  std::shared_ptr<v1::ClusterControl::Stub> stub_;
};

struct FaultLeaseOptions {
  // Names the holder in the supervisor's log and Status; " (pid N)" is appended.
  std::string holder;
  std::chrono::milliseconds ttl{5000};
  std::chrono::milliseconds renew_every{1000};
  // Optional, absolute: where the supervisor copies the cluster's logs if this holder dies holding
  // the lease (or the supervisor stops meanwhile), so a killed run keeps its evidence.
  std::string artifacts_dir = "";
};

// Holds the fault lease from construction (the first renewal is synchronous and throws
// ClusterClientError) to destruction (released: whatever is still in force is reverted by the
// supervisor at once). A renewal that fails is retried at the next tick; last_error() names it.
class FaultLeaseHolder {
 public:
  FaultLeaseHolder(const ClusterClient& client, FaultLeaseOptions options);
  ~FaultLeaseHolder();
  FaultLeaseHolder(const FaultLeaseHolder&) = delete;
  FaultLeaseHolder& operator=(const FaultLeaseHolder&) = delete;

  const std::string& holder() const { return holder_; }
  std::string last_error() const;

 private:
  void RenewLoop();

  ClusterClient client_;
  FaultLeaseOptions options_;
  std::string holder_;
  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::string last_error_;
  std::thread renewer_;
};

// What keeps the cluster from being clean, one entry each: a database or replication link fault, a
// replica defect, replication that is not strict synchronous, a cordoned node. Empty: clean.
std::vector<std::string> FaultsInForce(const v1::ClusterStatus& status);

// "" when the cluster is clean. While faults are in force that no fault lease holds any more, waits
// up to `expiry_wait` for the supervisor to revert them; faults a live lease holds are reported at
// once. Otherwise a sentence naming every fault found and who holds them.
std::string WaitUntilClean(ClusterClient& client, std::chrono::milliseconds expiry_wait);

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_CLUSTER_CLIENT_H_
