#include "framework/cluster/control/cluster_control_service.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace aftershock::cluster {
namespace {

using std::chrono::milliseconds;

// A client-chosen duration, with a ceiling: the supervisor's shutdown must never wait on a call
// whose timeout a client picked.
milliseconds OrDefault(std::uint32_t value_ms, std::uint32_t default_ms, milliseconds ceiling) {
  return std::min(milliseconds(value_ms == 0 ? default_ms : value_ms), ceiling);
}

constexpr milliseconds kWaitCeiling = std::chrono::minutes(10);
constexpr milliseconds kActionCeiling = std::chrono::minutes(30);
constexpr milliseconds kGraceCeiling = std::chrono::minutes(5);

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
  return Run([&] { *out = cluster_.WaitSteady(OrDefault(request->timeout_ms(), 60000, kWaitCeiling)); });
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
    *out = cluster_.RollingRestart(OrDefault(request->grace_ms(), 10000, kGraceCeiling),
                                   OrDefault(request->min_ready_ms(), 2000, kGraceCeiling),
                                   OrDefault(request->timeout_ms(), 120000, kActionCeiling));
  });
}

grpc::Status ClusterControlService::Drain(grpc::ServerContext*, const v1::DrainRequest* request,
                                          v1::ActionResult* out) {
  return Run([&] {
    *out = cluster_.Drain(request->node(), OrDefault(request->timeout_ms(), 120000, kActionCeiling),
                          OrDefault(request->grace_ms(), 10000, kGraceCeiling));
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
  return Run([&] {
    *out = cluster_.RenewFaultLease(request->holder(), milliseconds(request->ttl_ms()), request->artifacts_dir());
  });
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
  // Bound inside the supervisor's private folder (0700), then 0600: only its own user connects.
  struct stat st {};
  errno = 0;
  if (::chmod(socket_path.c_str(), 0600) != 0 || ::lstat(socket_path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode) ||
      st.st_uid != ::geteuid()) {
    const std::string why = errno != 0 ? std::strerror(errno) : "not a socket of this user";
    server->Shutdown(std::chrono::system_clock::now());
    throw std::runtime_error("the control socket " + socket_path + " cannot be made private (mode 0600): " + why);
  }
  return server;
}

void ClusterControlServer::Shutdown(std::chrono::system_clock::time_point cancel_at) {
  std::lock_guard<std::mutex> lock(shutdown_mu_);
  if (server_ && !shut_down_) {
    server_->Shutdown(cancel_at);
    server_->Wait();
  }
  shut_down_ = true;
}

ClusterControlServer::~ClusterControlServer() {
  Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  std::error_code ec;
  std::filesystem::remove(socket_path_, ec);
}

}  // namespace aftershock::cluster
