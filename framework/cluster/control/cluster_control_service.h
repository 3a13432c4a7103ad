// ClusterControlService: the gRPC face of a LocalCluster (the aftershock.cluster.v1.ClusterControl
// contract), served over a unix socket by the aftershock-cluster supervisor. Every call renews the
// idle lease; Shutdown answers first and then calls `on_shutdown` (the supervisor stops everything).
//
//   auto server = ClusterControlServer::Start(*cluster, "/run/user/0/aftershock/control.sock",
//                                             [&] { stop_requested = true; });   // socket 0600
//   ...                                                   // clients: ClusterClient::Attach()
//   server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
//   server.reset();                                       // stops serving, removes the socket
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_CLUSTER_CONTROL_SERVICE_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_CLUSTER_CONTROL_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "framework/cluster/control/cluster_control.grpc.pb.h"
#include "framework/cluster/local/local_cluster.h"

namespace aftershock::cluster {

class ClusterControlService final : public v1::ClusterControl::Service {
 public:
  ClusterControlService(LocalCluster& cluster, std::function<void()> on_shutdown)
      : cluster_(cluster), on_shutdown_(std::move(on_shutdown)) {}

  grpc::Status Status(grpc::ServerContext*, const v1::StatusRequest*, v1::ClusterStatus*) override;
  grpc::Status WaitSteady(grpc::ServerContext*, const v1::WaitSteadyRequest*, v1::ClusterStatus*) override;
  grpc::Status KillReplica(grpc::ServerContext*, const v1::KillReplicaRequest*, v1::ActionResult*) override;
  grpc::Status KillDatabasePrimary(grpc::ServerContext*, const v1::KillDatabasePrimaryRequest*,
                                   v1::ActionResult*) override;
  grpc::Status SetDatabaseLinkFaults(grpc::ServerContext*, const v1::LinkFaultsRequest*, v1::ActionResult*) override;
  grpc::Status ClearDatabaseLinkFaults(grpc::ServerContext*, const v1::ClearDatabaseLinkFaultsRequest*,
                                       v1::ActionResult*) override;
  grpc::Status SetReplicationLinkFaults(grpc::ServerContext*, const v1::LinkFaultsRequest*,
                                        v1::ActionResult*) override;
  grpc::Status ClearReplicationLinkFaults(grpc::ServerContext*, const v1::ClearReplicationLinkFaultsRequest*,
                                          v1::ActionResult*) override;
  grpc::Status SetReplicationMode(grpc::ServerContext*, const v1::ReplicationModeRequest*, v1::ActionResult*) override;
  grpc::Status RollingRestart(grpc::ServerContext*, const v1::RollingRestartRequest*, v1::ActionResult*) override;
  grpc::Status Drain(grpc::ServerContext*, const v1::DrainRequest*, v1::ActionResult*) override;
  grpc::Status Uncordon(grpc::ServerContext*, const v1::UncordonRequest*, v1::ActionResult*) override;
  grpc::Status SetReplicaDefects(grpc::ServerContext*, const v1::ReplicaDefectsRequest*, v1::ActionResult*) override;
  grpc::Status CollectArtifacts(grpc::ServerContext*, const v1::CollectArtifactsRequest*, v1::ActionResult*) override;
  grpc::Status RenewLease(grpc::ServerContext*, const v1::RenewLeaseRequest*, v1::ActionResult*) override;
  grpc::Status RenewFaultLease(grpc::ServerContext*, const v1::FaultLeaseRequest*, v1::ActionResult*) override;
  grpc::Status ReleaseFaultLease(grpc::ServerContext*, const v1::FaultLeaseRequest*, v1::ActionResult*) override;
  grpc::Status Shutdown(grpc::ServerContext*, const v1::ShutdownRequest*, v1::ActionResult*) override;

 private:
  // Renews the lease, runs `call`, maps ClusterError to its code and anything else to INTERNAL.
  template <typename Fn>
  grpc::Status Run(Fn&& call);

  LocalCluster& cluster_;
  std::function<void()> on_shutdown_;
};

class ClusterControlServer {
 public:
  // Listens on unix:`socket_path` (an old socket file there is replaced) and makes the socket 0600
  // (bind it inside a private folder: PrepareStateDir). Throws std::runtime_error.
  static std::unique_ptr<ClusterControlServer> Start(LocalCluster& cluster, const std::string& socket_path,
                                                     std::function<void()> on_shutdown);
  ~ClusterControlServer();
  ClusterControlServer(const ClusterControlServer&) = delete;
  ClusterControlServer& operator=(const ClusterControlServer&) = delete;

  const std::string& socket_path() const { return socket_path_; }
  // Stops serving: new calls are refused, calls still running at `cancel_at` are cancelled, and it
  // returns once every handler has returned (a handler blocked in the cluster returns when the
  // cluster stops: run this on a thread of its own and bound the wait). Idempotent.
  void Shutdown(std::chrono::system_clock::time_point cancel_at);

 private:
  ClusterControlServer(std::string socket_path, std::unique_ptr<ClusterControlService> service)
      : socket_path_(std::move(socket_path)), service_(std::move(service)) {}

  std::string socket_path_;
  std::unique_ptr<ClusterControlService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::mutex shutdown_mu_;
  bool shut_down_ = false;
};

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_CLUSTER_CONTROL_SERVICE_H_
