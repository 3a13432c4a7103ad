#include "framework/cluster/control/cluster_client.h"

namespace aftershock::cluster {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kShortCall{30000};
constexpr milliseconds kSlack{30000};

std::string CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "CODE_" + std::to_string(static_cast<int>(code));
  }
}

}  // namespace

ClusterClient ClusterClient::Attach() { return Attach(internal::DefaultStateFilePath()); }

ClusterClient ClusterClient::Attach(const std::string& state_path) {
  internal::ClusterStateFile state = internal::ReadStateFile(state_path);
  std::string socket = state.socket;
  return ClusterClient(std::move(socket), std::move(state));
}

ClusterClient ClusterClient::Connect(const std::string& socket_path) {
  return ClusterClient(socket_path, internal::ClusterStateFile{});
}

ClusterClient::ClusterClient(std::string socket_path, internal::ClusterStateFile state)
    : socket_path_(std::move(socket_path)), state_(std::move(state)) {
  stub_ = v1::ClusterControl::NewStub(grpc::CreateChannel("unix:" + socket_path_, grpc::InsecureChannelCredentials()));
}

template <typename Request, typename Response, typename Method>
Response ClusterClient::Call(const char* name, Method method, const Request& request, milliseconds deadline) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  Response response;
  const grpc::Status status = ((*stub_).*method)(&context, request, &response);
  if (!status.ok()) {
    throw ClusterClientError(status.error_code(), std::string("ClusterControl.") + name + " (unix:" + socket_path_ +
                                                      "): " + CodeName(status.error_code()) + ": " +
                                                      status.error_message());
  }
  return response;
}

using Stub = v1::ClusterControl::Stub;

v1::ClusterStatus ClusterClient::Status() {
  return Call<v1::StatusRequest, v1::ClusterStatus>("Status", &Stub::Status, {}, kShortCall);
}

v1::ClusterStatus ClusterClient::WaitSteady(milliseconds timeout) {
  v1::WaitSteadyRequest request;
  request.set_timeout_ms(static_cast<std::uint32_t>(timeout.count()));
  return Call<v1::WaitSteadyRequest, v1::ClusterStatus>("WaitSteady", &Stub::WaitSteady, request, timeout + kSlack);
}

v1::ActionResult ClusterClient::KillReplica(const std::string& name) {
  v1::KillReplicaRequest request;
  request.set_name(name);
  return Call<v1::KillReplicaRequest, v1::ActionResult>("KillReplica", &Stub::KillReplica, request, kShortCall);
}

v1::ActionResult ClusterClient::KillDatabasePrimary() {
  return Call<v1::KillDatabasePrimaryRequest, v1::ActionResult>("KillDatabasePrimary", &Stub::KillDatabasePrimary, {},
                                                                milliseconds(60000));
}

v1::ActionResult ClusterClient::SetDatabaseLinkFaults(const std::string& member, const v1::LinkFaults& faults) {
  v1::LinkFaultsRequest request;
  request.set_member(member);
  *request.mutable_faults() = faults;
  return Call<v1::LinkFaultsRequest, v1::ActionResult>("SetDatabaseLinkFaults", &Stub::SetDatabaseLinkFaults, request,
                                                       kShortCall);
}

v1::ActionResult ClusterClient::ClearDatabaseLinkFaults() {
  return Call<v1::ClearDatabaseLinkFaultsRequest, v1::ActionResult>("ClearDatabaseLinkFaults",
                                                                    &Stub::ClearDatabaseLinkFaults, {}, kShortCall);
}

v1::ActionResult ClusterClient::SetReplicationLinkFaults(const std::string& member, const v1::LinkFaults& faults) {
  v1::LinkFaultsRequest request;
  request.set_member(member);
  *request.mutable_faults() = faults;
  return Call<v1::LinkFaultsRequest, v1::ActionResult>("SetReplicationLinkFaults", &Stub::SetReplicationLinkFaults,
                                                       request, kShortCall);
}

v1::ActionResult ClusterClient::ClearReplicationLinkFaults() {
  return Call<v1::ClearReplicationLinkFaultsRequest, v1::ActionResult>(
      "ClearReplicationLinkFaults", &Stub::ClearReplicationLinkFaults, {}, kShortCall);
}

v1::ActionResult ClusterClient::SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes) {
  v1::ReplicationModeRequest request;
  request.set_synchronous(synchronous);
  request.set_maximum_lag_on_failover_bytes(maximum_lag_on_failover_bytes);
  return Call<v1::ReplicationModeRequest, v1::ActionResult>("SetReplicationMode", &Stub::SetReplicationMode, request,
                                                            milliseconds(60000) + kSlack);
}

v1::ActionResult ClusterClient::RollingRestart(const v1::RollingRestartRequest& request) {
  const milliseconds timeout(request.timeout_ms() == 0 ? 120000 : request.timeout_ms());
  return Call<v1::RollingRestartRequest, v1::ActionResult>("RollingRestart", &Stub::RollingRestart, request,
                                                           timeout + kSlack);
}

v1::ActionResult ClusterClient::Drain(const std::string& node, milliseconds timeout, milliseconds grace) {
  v1::DrainRequest request;
  request.set_node(node);
  request.set_timeout_ms(static_cast<std::uint32_t>(timeout.count()));
  request.set_grace_ms(static_cast<std::uint32_t>(grace.count()));
  const milliseconds total = (timeout.count() == 0 ? milliseconds(120000) : timeout) +
                             (grace.count() == 0 ? milliseconds(10000) : grace) + kSlack;
  return Call<v1::DrainRequest, v1::ActionResult>("Drain", &Stub::Drain, request, total);
}

v1::ActionResult ClusterClient::Uncordon(const std::string& node) {
  v1::UncordonRequest request;
  request.set_node(node);
  return Call<v1::UncordonRequest, v1::ActionResult>("Uncordon", &Stub::Uncordon, request, milliseconds(90000));
}

v1::ActionResult ClusterClient::SetReplicaDefects(const v1::ReplicaDefectsRequest& request) {
  return Call<v1::ReplicaDefectsRequest, v1::ActionResult>("SetReplicaDefects", &Stub::SetReplicaDefects, request,
                                                           kShortCall);
}

v1::ActionResult ClusterClient::CollectArtifacts(const std::string& directory) {
  v1::CollectArtifactsRequest request;
  request.set_directory(directory);
  return Call<v1::CollectArtifactsRequest, v1::ActionResult>("CollectArtifacts", &Stub::CollectArtifacts, request,
                                                             milliseconds(60000));
}

v1::ActionResult ClusterClient::RenewLease(milliseconds lease) {
  v1::RenewLeaseRequest request;
  request.set_lease_ms(static_cast<std::uint32_t>(lease.count()));
  return Call<v1::RenewLeaseRequest, v1::ActionResult>("RenewLease", &Stub::RenewLease, request, kShortCall);
}

v1::ActionResult ClusterClient::Shutdown() {
  return Call<v1::ShutdownRequest, v1::ActionResult>("Shutdown", &Stub::Shutdown, {}, kShortCall);
}

std::vector<std::string> ClusterClient::ReplicaAddresses() {
  std::vector<std::string> out;
  for (const auto& [name, address] : state_.replicas) out.push_back(address);
  if (!out.empty()) return out;
  const v1::ClusterStatus status = Status();
  for (const v1::Replica& replica : status.replicas()) out.push_back(replica.address());
  return out;
}

}  // namespace aftershock::cluster
