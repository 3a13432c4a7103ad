#include "framework/cluster/control/cluster_control_service.h"

#include <chrono>
#include <filesystem>
#include <stdexcept>

namespace aftershock::cluster {
namespace {

using std::chrono::milliseconds;

milliseconds OrDefault(std::uint32_t value_ms, std::uint32_t default_ms) {
  return milliseconds(value_ms == 0 ? default_ms : value_ms);
}

}  // namespace

template <typename Fn>
grpc::Status ClusterControlService::Run(Fn&& call) {
  try {
    cluster_.Touch();
    call();
    return grpc::Status::OK;
  } catch (const ClusterError& e) {
    return grpc::Status(e.code(), e.what());
  } catch (const std::exception& e) {
    return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
  }
}

grpc::Status ClusterControlService::Status(grpc::ServerContext*, const v1::StatusRequest*, v1::ClusterStatus* out) {
  return Run([&] { *out = cluster_.Status(); });
}

grpc::Status ClusterControlService::WaitSteady(grpc::ServerContext*, const v1::WaitSteadyRequest* request,
                                               v1::ClusterStatus* out) {
  return Run([&] { *out = cluster_.WaitSteady(OrDefault(request->timeout_ms(), 60000)); });
}

grpc::Status ClusterControlService::KillReplica(grpc::ServerContext*, const v1::KillReplicaRequest* request,
                                                v1::ActionResult* out) {
  return Run([&] { *out = cluster_.KillReplica(request->name()); });
}

grpc::Status ClusterControlService::KillDatabasePrimary(grpc::ServerContext*, const v1::KillDatabasePrimaryRequest*,
                                                        v1::ActionResult* out) {
  return Run([&] { *out = cluster_.KillDatabasePrimary(); });
}

grpc::Status ClusterControlService::SetDatabaseLinkFaults(grpc::ServerContext*, const v1::LinkFaultsRequest* request,
                                                          v1::ActionResult* out) {
  return Run([&] { *out = cluster_.SetDatabaseLinkFaults(request->member(), ProxyFaultsFromProto(request->faults())); });
}

grpc::Status ClusterControlService::ClearDatabaseLinkFaults(grpc::ServerContext*,
                                                            const v1::ClearDatabaseLinkFaultsRequest*,
                                                            v1::ActionResult* out) {
  return Run([&] { *out = cluster_.ClearDatabaseLinkFaults(); });
}

grpc::Status ClusterControlService::SetReplicationLinkFaults(grpc::ServerContext*, const v1::LinkFaultsRequest* request,
                                                             v1::ActionResult* out) {
  return Run(
      [&] { *out = cluster_.SetReplicationLinkFaults(request->member(), ProxyFaultsFromProto(request->faults())); });
}

grpc::Status ClusterControlService::ClearReplicationLinkFaults(grpc::ServerContext*,
                                                               const v1::ClearReplicationLinkFaultsRequest*,
                                                               v1::ActionResult* out) {
  return Run([&] { *out = cluster_.ClearReplicationLinkFaults(); });
}

grpc::Status ClusterControlService::SetReplicationMode(grpc::ServerContext*, const v1::ReplicationModeRequest* request,
                                                       v1::ActionResult* out) {
  return Run([&] { *out = cluster_.SetReplicationMode(request->synchronous(), request->maximum_lag_on_failover_bytes()); });
}

grpc::Status ClusterControlService::RollingRestart(grpc::ServerContext*, const v1::RollingRestartRequest* request,
                                                   v1::ActionResult* out) {
  return Run([&] {
    *out = cluster_.RollingRestart(OrDefault(request->grace_ms(), 10000), OrDefault(request->min_ready_ms(), 2000),
                                   OrDefault(request->timeout_ms(), 120000));
  });
}

grpc::Status ClusterControlService::Drain(grpc::ServerContext*, const v1::DrainRequest* request,
                                          v1::ActionResult* out) {
  return Run([&] {
    *out = cluster_.Drain(request->node(), OrDefault(request->timeout_ms(), 120000),
                          OrDefault(request->grace_ms(), 10000));
  });
}

grpc::Status ClusterControlService::Uncordon(grpc::ServerContext*, const v1::UncordonRequest* request,
                                             v1::ActionResult* out) {
  return Run([&] { *out = cluster_.Uncordon(request->node()); });
}

grpc::Status ClusterControlService::SetReplicaDefects(grpc::ServerContext*, const v1::ReplicaDefectsRequest* request,
                                                      v1::ActionResult* out) {
  return Run([&] { *out = cluster_.SetReplicaDefects(request->replica(), DefectsFromRequest(*request)); });
}

grpc::Status ClusterControlService::CollectArtifacts(grpc::ServerContext*, const v1::CollectArtifactsRequest* request,
                                                     v1::ActionResult* out) {
  return Run([&] { *out = cluster_.CollectArtifacts(request->directory()); });
}

grpc::Status ClusterControlService::RenewLease(grpc::ServerContext*, const v1::RenewLeaseRequest* request,
                                               v1::ActionResult* out) {
  return Run([&] { *out = cluster_.RenewLease(milliseconds(request->lease_ms())); });
}

grpc::Status ClusterControlService::RenewFaultLease(grpc::ServerContext*, const v1::FaultLeaseRequest* request,
                                                    v1::ActionResult* out) {
  return Run([&] { *out = cluster_.RenewFaultLease(request->holder(), milliseconds(request->ttl_ms())); });
}

grpc::Status ClusterControlService::ReleaseFaultLease(grpc::ServerContext*, const v1::FaultLeaseRequest* request,
                                                      v1::ActionResult* out) {
  return Run([&] { *out = cluster_.ReleaseFaultLease(request->holder()); });
}

grpc::Status ClusterControlService::Shutdown(grpc::ServerContext*, const v1::ShutdownRequest*, v1::ActionResult* out) {
  const auto now = std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  out->set_summary("shutting down: stopping every process the supervisor started");
  out->set_target("cluster");
  out->set_started_unix_ms(now.count());
  out->set_finished_unix_ms(now.count());
  // The caller (the supervisor's main loop) stops the server after this call has been answered.
  if (on_shutdown_) on_shutdown_();
  return grpc::Status::OK;
}

std::unique_ptr<ClusterControlServer> ClusterControlServer::Start(LocalCluster& cluster, const std::string& socket_path,
                                                                  std::function<void()> on_shutdown) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(socket_path).parent_path(), ec);
  std::filesystem::remove(socket_path, ec);
  auto service = std::make_unique<ClusterControlService>(cluster, std::move(on_shutdown));
  std::unique_ptr<ClusterControlServer> server(new ClusterControlServer(socket_path, std::move(service)));
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + socket_path, grpc::InsecureServerCredentials());
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (!server->server_) throw std::runtime_error("cannot serve the cluster control API on unix:" + socket_path);
  return server;
}

ClusterControlServer::~ClusterControlServer() {
  if (server_) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_->Wait();
  }
  std::error_code ec;
  std::filesystem::remove(socket_path_, ec);
}

}  // namespace aftershock::cluster
