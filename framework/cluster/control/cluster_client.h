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
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_CLUSTER_CLIENT_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_CLUSTER_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
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

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_CLUSTER_CLIENT_H_
