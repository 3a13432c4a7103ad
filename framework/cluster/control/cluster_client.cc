#include "framework/cluster/control/cluster_client.h"

#include <unistd.h>

#include <algorithm>

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

v1::ActionResult ClusterClient::RenewFaultLease(const std::string& holder, milliseconds ttl,
                                                const std::string& artifacts_dir) {
  v1::FaultLeaseRequest request;
  request.set_holder(holder);
  request.set_artifacts_dir(artifacts_dir);
  request.set_ttl_ms(static_cast<std::uint32_t>(ttl.count()));
  // Shorter than the TTL, so a hung renewal is retried before the lease runs out.
  const milliseconds deadline = std::clamp(ttl / 2, milliseconds(200), kShortCall);
  return Call<v1::FaultLeaseRequest, v1::ActionResult>("RenewFaultLease", &Stub::RenewFaultLease, request, deadline);
}

v1::ActionResult ClusterClient::ReleaseFaultLease(const std::string& holder) {
  v1::FaultLeaseRequest request;
  request.set_holder(holder);
  return Call<v1::FaultLeaseRequest, v1::ActionResult>("ReleaseFaultLease", &Stub::ReleaseFaultLease, request,
                                                       kShortCall);
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

FaultLeaseHolder::FaultLeaseHolder(const ClusterClient& client, FaultLeaseOptions options)
    : client_(client), options_(std::move(options)) {
  if (options_.ttl.count() <= 0 || options_.renew_every.count() <= 0 || options_.renew_every >= options_.ttl) {
    throw std::invalid_argument("fault lease of '" + options_.holder + "': renew_every (" +
                                std::to_string(options_.renew_every.count()) + " ms) must be > 0 and below the TTL (" +
                                std::to_string(options_.ttl.count()) + " ms)");
  }
  holder_ = (options_.holder.empty() ? std::string("fault lease") : options_.holder) + " (pid " +
            std::to_string(::getpid()) + ")";
  client_.RenewFaultLease(holder_, options_.ttl, options_.artifacts_dir);
  renewer_ = std::thread([this] { RenewLoop(); });
}

FaultLeaseHolder::~FaultLeaseHolder() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (renewer_.joinable()) renewer_.join();
  try {
    client_.ReleaseFaultLease(holder_);
  } catch (const std::exception&) {
    // The supervisor is gone or unreachable: its lease runs out by itself.
  }
}

std::string FaultLeaseHolder::last_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_error_;
}

void FaultLeaseHolder::RenewLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_cv_.wait_for(lock, options_.renew_every, [this] { return stop_; })) {
    lock.unlock();
    std::string error;
    try {
      client_.RenewFaultLease(holder_, options_.ttl, options_.artifacts_dir);
    } catch (const std::exception& e) {
      error = e.what();
    }
    lock.lock();
    last_error_ = error;
  }
}

namespace {

bool AnyLinkFault(const v1::LinkFaults& f) {
  return f.latency_ms() != 0 || f.jitter_ms() != 0 || f.blackhole() || f.reset() || f.bandwidth_bytes_per_second() != 0;
}

std::string Joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

}  // namespace

std::vector<std::string> FaultsInForce(const v1::ClusterStatus& status) {
  std::vector<std::string> found;
  for (const v1::DatabaseMember& m : status.members()) {
    if (AnyLinkFault(m.link_faults())) {
      found.push_back("database link fault on " + m.name() + " {" + m.link_faults().ShortDebugString() + "}");
    }
    if (AnyLinkFault(m.replication_link_faults())) {
      found.push_back("replication link fault on " + m.name() + " {" + m.replication_link_faults().ShortDebugString() +
                      "}");
    }
  }
  for (const v1::Replica& r : status.replicas()) {
    if (!r.defects().empty()) found.push_back("defects on replica " + r.name() + " {" + r.defects() + "}");
  }
  if (status.replication() != "synchronous") {
    found.push_back("replication is " + (status.replication().empty() ? std::string("unknown") : status.replication()) +
                    ", not strict synchronous");
  }
  for (const v1::Replica& r : status.replicas()) {
    if (r.node_cordoned()) found.push_back("node " + r.node() + " is cordoned");
  }
  return found;
}

std::string WaitUntilClean(ClusterClient& client, milliseconds expiry_wait) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + expiry_wait;
  while (true) {
    const v1::ClusterStatus status = client.Status();
    const std::vector<std::string> found = FaultsInForce(status);
    if (found.empty()) return "";
    std::vector<std::string> holders;
    const auto now_ms =
        std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    for (const v1::FaultLeaseHold& hold : status.fault_lease_holders()) {
      holders.push_back("'" + hold.holder() + "' (expires in " +
                        std::to_string(std::max<std::int64_t>(0, hold.expires_unix_ms() - now_ms) / 1000) + " s)");
    }
    const bool held = !holders.empty();
    if (held || Clock::now() >= deadline) {
      return "the cluster is not clean: " + Joined(found) +
             (held ? "; held by the fault lease of " + Joined(holders)
                   : "; no fault lease holds it, but the supervisor did not revert it within " +
                         std::to_string(expiry_wait.count()) + " ms (see its log)") +
             ". Revert it (aftershock-cluster release, or the verbs of docs/cluster.md) before running a scenario";
    }
    std::this_thread::sleep_for(milliseconds(250));
  }
}

}  // namespace aftershock::cluster
