#include "framework/cluster/local/local_cluster.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "framework/cluster/internal/free_ports.h"
#include "framework/cluster/local/database.h"
#include "framework/cluster/local/internal/action_result.h"
#include "framework/cluster/local/internal/artifact_files.h"
#include "framework/cluster/local/internal/fault_lease.h"
#include "framework/cluster/local/internal/janitor.h"
#include "framework/cluster/local/internal/owner_thread.h"
#include "framework/cluster/local/replica_set.h"
#include "framework/process/child_process.h"

namespace aftershock::cluster {
namespace internal {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kOwnerTick{100};

}  // namespace

class LocalClusterImpl {
 public:
  explicit LocalClusterImpl(LocalClusterOptions options);
  ~LocalClusterImpl() { Stop(); }

  void Start();
  void Stop();

  v1::ClusterStatus Status();
  v1::ClusterStatus WaitSteady(milliseconds timeout);
  v1::ActionResult CollectArtifacts(const std::string& directory);
  v1::ActionResult RenewLease(milliseconds lease);
  void Touch();
  bool LeaseExpired() const;
  v1::ActionResult RenewFaultLease(const std::string& holder, milliseconds ttl, const std::string& artifacts_dir);
  v1::ActionResult ReleaseFaultLease(const std::string& holder);
  void RemoveAfterCrash(const std::string& path);

  ReplicaSet& replicas() { return *replicas_; }
  Database& database() { return *database_; }
  std::string ReplicaStore() const { return replicas_->spec().store; }
  const std::string& DataDir() const { return data_dir_; }
  const std::string& WorkDir() const { return work_dir_; }
  std::int64_t StartedUnixMs() const { return started_unix_ms_; }

 private:
  void FaultApplied() { fault_lease_.FaultApplied(options_.unheld_fault_hold); }
  int PickReplicaPorts();
  // The fault lease's thread: reverts every fault in force once no holder is live.
  void FaultLeaseLoop();
  // False when a revert step failed (retried later).
  bool RevertHeldFaults(const FaultLease::Due& due);
  // The cluster's logs into the artifacts folder of every holder whose lease ended without a
  // release (all of them when `all`, on Stop()): a killed run keeps its evidence.
  void CollectForLostHolders(bool all);
  void JanitorRecord(const std::function<void(Janitor&)>& record);

  LocalClusterOptions options_;
  std::string work_dir_;
  bool created_work_dir_ = false;
  std::string data_dir_;
  bool created_data_dir_ = false;
  std::int64_t started_unix_ms_ = UnixMs();
  std::atomic<bool> stopping_{false};

  FaultLease fault_lease_;
  std::unique_ptr<Database> database_;
  std::unique_ptr<ReplicaSet> replicas_;
  std::unique_ptr<OwnerThread> owner_;  // after the parts it ticks: stopped first

  // The idle lease.
  mutable std::mutex lease_mu_;
  milliseconds lease_{0};
  Clock::time_point lease_expires_{};

  // The fault lease's thread.
  std::thread fault_lease_thread_;
  std::mutex fault_lease_mu_;
  std::condition_variable fault_lease_cv_;
  bool fault_lease_exit_ = false;

  std::unique_ptr<Janitor> janitor_;
  // holder -> artifacts folder, for holders that named one and have not released their lease.
  std::mutex artifacts_mu_;
  std::map<std::string, std::string> holder_artifacts_;
  bool stopped_ = false;
  std::mutex stop_mu_;
};

LocalClusterImpl::LocalClusterImpl(LocalClusterOptions options) : options_(std::move(options)) {
  DatabaseOptions db;
  db.patroni = options_.database;
  // Every process group the database starts is recorded with the janitor as it starts.
  db.patroni.on_child_started = [this](pid_t pid) {
    JanitorRecord([&](Janitor& janitor) { janitor.KillGroupAfterCrash(pid, data_dir_); });
  };
  db.replication_through_proxy = options_.replication_through_proxy;
  db.member_rejoin_delay = options_.member_rejoin_delay;
  database_ = std::make_unique<Database>(std::move(db), [this] { FaultApplied(); });
  ReplicaSetOptions replica_options;
  replica_options.ready_timeout = options_.replica_ready_timeout;
  replica_options.backoff_initial = options_.restart_backoff_initial;
  replica_options.backoff_max = options_.restart_backoff_max;
  replica_options.backoff_reset = options_.restart_backoff_reset;
  replicas_ = std::make_unique<ReplicaSet>(options_.replicas, replica_options, [this] { FaultApplied(); },
                                           [this] { if (owner_) owner_->Wake(); });
  owner_ = std::make_unique<OwnerThread>(
      [this] {
        replicas_->Tick();
        database_->Tick();
      },
      kOwnerTick);
}

int LocalClusterImpl::PickReplicaPorts() {
  const std::vector<int> db_ports = database_->UsedPorts();
  const int count = options_.replicas.count;
  for (int attempt = 0; attempt < 16; ++attempt) {
    const int candidate = FindFreePortBlock("127.0.0.1", count, 20000, 32000, 64).value_or(-1);
    const bool clash = std::any_of(db_ports.begin(), db_ports.end(),
                                   [&](int p) { return p >= candidate && p < candidate + count; });
    if (candidate > 0 && !clash) return candidate;
  }
  throw ClusterError(grpc::StatusCode::RESOURCE_EXHAUSTED,
                     "found no free block of " + std::to_string(count) + " ports for the replicas");
}

void LocalClusterImpl::Start() {
  // 0. The janitor before any other process: a SIGKILL from here on leaves nothing behind.
  if (options_.janitor) janitor_ = Janitor::Start(options_.janitor_log_path);

  // Scratch directory for the replica logs.
  if (options_.work_dir.empty()) {
    std::string pattern = "/tmp/aftershock-cluster-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw ClusterError(grpc::StatusCode::INTERNAL, "cannot create a scratch directory under /tmp");
    }
    work_dir_ = pattern;
  } else {
    work_dir_ = options_.work_dir;
    std::error_code ec;
    fs::create_directories(work_dir_, ec);
    if (ec) throw ClusterError(grpc::StatusCode::INTERNAL, "cannot create " + work_dir_ + ": " + ec.message());
  }
  created_work_dir_ = true;
  JanitorRecord([&](Janitor& janitor) { janitor.RemoveAfterCrash(fs::absolute(work_dir_).string()); });

  // The database's data dir, created here (not by PatroniCluster) so that the janitor knows it
  // before the first database process starts.
  if (options_.database.data_dir.empty()) {
    std::string pattern = "/tmp/aftershock-db-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw ClusterError(grpc::StatusCode::INTERNAL, std::string("cannot create the database data dir: ") +
                                                         std::strerror(errno));
    }
    data_dir_ = pattern;
    created_data_dir_ = true;
    JanitorRecord([&](Janitor& janitor) {
      janitor.StopPostmastersAfterCrash(data_dir_);
      janitor.RemoveAfterCrash(data_dir_);
    });
    database_->UseDataDir(data_dir_);
  } else {
    // The caller's folder: the janitor stops its postmasters after a crash but does not remove it.
    data_dir_ = fs::absolute(options_.database.data_dir).lexically_normal().string();
  }
  std::cerr << "[cluster] janitor pid " << (janitor_ ? janitor_->pid() : -1) << ", scratch " << work_dir_
            << ", database data dir " << data_dir_ << "\n";

  // 1. The database (forked by the owner thread, like every child), then the proxies the replicas
  //    connect through.
  database_->PrepareReplicationProxies();
  owner_->Run([this] { database_->StartMembers(); });
  if (!created_data_dir_) {
    data_dir_ = database_->DataDir();
    JanitorRecord([&](Janitor& janitor) { janitor.StopPostmastersAfterCrash(data_dir_); });
  }
  database_->StartServiceProxies();

  // 2. The replicas, on ports stable across restarts; every one ready.
  replicas_->Configure(PickReplicaPorts(), database_->ConnectionString(), work_dir_);
  {
    std::lock_guard<std::mutex> lock(lease_mu_);
    lease_ = options_.lease;
    lease_expires_ = Clock::now() + lease_;
  }
  replicas_->WaitAllReady(options_.replica_ready_timeout);

  // 3. Steady state as a whole.
  WaitSteady(milliseconds(std::chrono::seconds(60)));
  started_unix_ms_ = UnixMs();

  // 4. From now on faults can be applied: the fault lease's dead-man's switch.
  fault_lease_thread_ = std::thread([this] { FaultLeaseLoop(); });
}

void LocalClusterImpl::FaultLeaseLoop() {
  auto next_attempt = Clock::now();
  std::unique_lock<std::mutex> lock(fault_lease_mu_);
  while (!fault_lease_exit_) {
    fault_lease_cv_.wait_for(lock, options_.fault_lease_check);
    if (fault_lease_exit_) break;
    if (Clock::now() < next_attempt) continue;
    const std::optional<FaultLease::Due> due = fault_lease_.DueForRevert();
    if (!due) {
      lock.unlock();
      CollectForLostHolders(false);
      lock.lock();
      continue;
    }
    lock.unlock();
    bool reverted = false;
    try {
      reverted = RevertHeldFaults(*due);
    } catch (const std::exception& e) {
      std::cerr << "[cluster] fault lease: revert failed: " << e.what() << "\n";
    }
    lock.lock();
    // A failed step is retried, not hammered.
    if (!reverted) next_attempt = Clock::now() + milliseconds(5000);
    lock.unlock();
    CollectForLostHolders(false);
    lock.lock();
  }
}

void LocalClusterImpl::JanitorRecord(const std::function<void(Janitor&)>& record) {
  if (!janitor_) return;
  try {
    record(*janitor_);
  } catch (const std::exception& e) {
    std::cerr << "[cluster] janitor: " << e.what() << "\n";
  }
}

void LocalClusterImpl::RemoveAfterCrash(const std::string& path) {
  if (janitor_) janitor_->RemoveAfterCrash(path);
}

void LocalClusterImpl::CollectForLostHolders(bool all) {
  std::map<std::string, std::string> lost;
  {
    std::set<std::string> live;
    if (!all) {
      for (const FaultLease::Holder& holder : fault_lease_.LiveHolders()) live.insert(holder.name);
    }
    std::lock_guard<std::mutex> lock(artifacts_mu_);
    for (auto it = holder_artifacts_.begin(); it != holder_artifacts_.end();) {
      if (live.count(it->first) == 0) {
        lost.insert(*it);
        it = holder_artifacts_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& [holder, dir] : lost) {
    try {
      CollectArtifacts(dir);
      std::cerr << "[cluster] the cluster's logs copied into " << dir << " (the artifacts folder of '" << holder
                << "', " << (all ? "the cluster is stopping" : "its fault lease ended without a release") << ")\n";
    } catch (const std::exception& e) {
      std::cerr << "[cluster] collecting the cluster's logs into " << dir << " for '" << holder
                << "' failed: " << e.what() << "\n";
    }
  }
}

bool LocalClusterImpl::RevertHeldFaults(const FaultLease::Due& due) {
  const std::vector<std::string> db_links = database_->LinkFaultsInForce();
  const std::vector<std::string> replication_links = database_->ReplicationLinkFaultsInForce();
  const bool asynchronous = database_->Asynchronous();
  const auto defects = replicas_->DefectsInForce();
  const std::vector<std::string> cordoned = replicas_->CordonedNodes();
  std::vector<std::string> reverted, errors;
  const auto attempt = [&](const std::string& what, const std::function<void()>& revert) {
    try {
      revert();
      reverted.push_back(what);
    } catch (const std::exception& e) {
      errors.push_back(what + ": " + e.what());
    }
  };
  if (!db_links.empty()) {
    attempt("database link faults on " + Join(db_links, ", "), [&] { database_->ClearLinkFaults(); });
  }
  if (!replication_links.empty()) {
    attempt("replication link faults on " + Join(replication_links, ", "),
            [&] { database_->ClearReplicationLinkFaults(); });
  }
  for (const auto& [name, text] : defects) {
    attempt("defects on replica " + name + " {" + text + "}", [&] { replicas_->SetDefects(name, {}); });
  }
  if (asynchronous) {
    attempt("asynchronous replication (strict synchronous again)", [&] { database_->SetReplicationMode(true, 0); });
  }
  for (const std::string& node : cordoned) attempt("cordon of " + node, [&] { replicas_->Uncordon(node); });

  const std::string summary = Join(reverted, "; ");
  if (!errors.empty()) {
    std::cerr << "[cluster] fault lease: " << due.reason << "; reverted: " << (summary.empty() ? "-" : summary)
              << "; FAILED: " << Join(errors, "; ") << " (retrying in 5 s)\n";
    return false;
  }
  if (summary.empty()) {
    std::cerr << "[cluster] fault lease: " << due.reason << "; no fault was in force\n";
  } else {
    std::cerr << "[cluster] fault lease: " << due.reason << "; reverted " << summary << "\n";
  }
  fault_lease_.Reverted(due.generation, due.reason, summary, UnixMs());
  return true;
}

void LocalClusterImpl::Stop() {
  std::lock_guard<std::mutex> stop_lock(stop_mu_);
  if (stopped_) return;
  stopped_ = true;
  stopping_ = true;
  // 0. The fault lease's thread (a revert in progress gives up: the cluster is stopping).
  {
    std::lock_guard<std::mutex> lock(fault_lease_mu_);
    fault_lease_exit_ = true;
  }
  fault_lease_cv_.notify_all();
  // 1. Replicas: SIGTERM all together, then reap each within the grace. (StopAll also makes a
  //    waiting action give up, so the fault lease's thread can be joined.)
  replicas_->StopAll(options_.replicas.grace + milliseconds(2000));
  if (fault_lease_thread_.joinable()) fault_lease_thread_.join();
  // 2. The evidence, while the logs exist: into the artifacts folder of every holder still holding
  //    the fault lease (a run whose ctest went away, or a supervisor told to stop mid-scenario).
  CollectForLostHolders(true);
  // 3. The database behind the proxies, then any postmaster it left behind.
  database_->Stop();
  // 4. The owner thread, the temporary folders, the janitor (dismissed: nothing is left to do).
  owner_->Stop();
  std::error_code ignored;
  if (created_work_dir_ && !work_dir_.empty()) fs::remove_all(work_dir_, ignored);
  if (created_data_dir_ && !data_dir_.empty()) fs::remove_all(data_dir_, ignored);
  if (janitor_) janitor_->Dismiss(milliseconds(2000));
  janitor_.reset();
}

v1::ClusterStatus LocalClusterImpl::Status() {
  v1::ClusterStatus status;
  std::string reasons;
  database_->FillStatus(status, reasons);
  replicas_->FillStatus(status, reasons);
  {
    std::lock_guard<std::mutex> lock(lease_mu_);
    status.set_lease_expires_unix_ms(
        UnixMs() + std::chrono::duration_cast<milliseconds>(lease_expires_ - Clock::now()).count());
  }
  status.set_steady(reasons.empty());
  status.set_not_steady_reason(reasons);
  status.set_started_unix_ms(started_unix_ms_);
  status.set_supervisor_pid(::getpid());
  const std::int64_t now_ms = UnixMs();
  for (const FaultLease::Holder& holder : fault_lease_.LiveHolders()) {
    v1::FaultLeaseHold* out = status.add_fault_lease_holders();
    out->set_holder(holder.name);
    out->set_ttl_ms(static_cast<std::uint32_t>(holder.ttl.count()));
    out->set_expires_unix_ms(now_ms + holder.remaining.count());
  }
  if (const std::optional<FaultLease::Expiry> expiry = fault_lease_.LastExpiry()) {
    status.mutable_last_fault_lease_expiry()->set_unix_ms(expiry->unix_ms);
    status.mutable_last_fault_lease_expiry()->set_reason(expiry->reason);
    status.mutable_last_fault_lease_expiry()->set_reverted(expiry->reverted);
  }
  status.set_fault_lease_expiries(fault_lease_.Expiries());
  return status;
}

v1::ClusterStatus LocalClusterImpl::WaitSteady(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    v1::ClusterStatus status = Status();
    if (status.steady()) return status;
    if (Clock::now() >= deadline) {
      throw ClusterError(grpc::StatusCode::DEADLINE_EXCEEDED,
                         "not steady within " + Ms(timeout) + ": " + status.not_steady_reason());
    }
    if (stopping_) throw ClusterError(grpc::StatusCode::UNAVAILABLE, "the local cluster is stopping");
    std::this_thread::sleep_for(std::min(milliseconds(300), std::chrono::duration_cast<milliseconds>(
                                                               deadline - Clock::now() + milliseconds(1))));
  }
}

v1::ActionResult LocalClusterImpl::CollectArtifacts(const std::string& directory) {
  const std::int64_t started = UnixMs();
  if (directory.empty()) throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, "no directory given");
  if (!fs::path(directory).is_absolute()) {
    throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT,
                       "the artifacts folder must be an absolute path, not '" + directory + "'");
  }
  ArtifactFolder(directory);
  std::vector<std::string> copied;
  ArtifactFolder(directory + "/database");
  if (database_->CopyLogsTo(directory + "/database")) copied.push_back("database/");
  std::vector<std::pair<std::string, std::string>> logs = replicas_->Logs();
  if (!options_.supervisor_log_path.empty()) logs.emplace_back(options_.supervisor_log_path, "supervisor.log");
  if (!options_.janitor_log_path.empty()) logs.emplace_back(options_.janitor_log_path, "janitor.log");
  for (const auto& [from, to] : logs) {
    CheckArtifactName(to);
    if (CopyNoFollow(from, (fs::path(directory) / to).string())) copied.push_back(to);
  }
  const v1::ClusterStatus status = Status();
  std::ostringstream text;
  text << "# aftershock local cluster status at unix_ms " << UnixMs() << "\n" << status.DebugString();
  WriteNoFollow(directory + "/status.txt", text.str());
  copied.push_back("status.txt");
  return Result(started, directory, "collected into " + directory + ": " + Join(copied, ", "));
}

v1::ActionResult LocalClusterImpl::RenewLease(milliseconds lease) {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> lock(lease_mu_);
  if (lease.count() > 0) lease_ = lease;
  lease_expires_ = Clock::now() + lease_;
  return Result(started, "lease", "lease renewed for " + Ms(lease_));
}

v1::ActionResult LocalClusterImpl::RenewFaultLease(const std::string& holder, milliseconds ttl,
                                                    const std::string& artifacts_dir) {
  const std::int64_t started = UnixMs();
  if (!artifacts_dir.empty() && !fs::path(artifacts_dir).is_absolute()) {
    throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT,
                       "the artifacts folder of '" + holder + "' must be an absolute path, not '" + artifacts_dir + "'");
  }
  try {
    fault_lease_.Renew(holder, ttl);
  } catch (const std::invalid_argument& e) {
    throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, e.what());
  }
  if (!artifacts_dir.empty()) {
    std::lock_guard<std::mutex> lock(artifacts_mu_);
    holder_artifacts_[holder] = artifacts_dir;
  }
  return Result(started, holder, "fault lease of '" + holder + "' renewed for " + Ms(ttl));
}

v1::ActionResult LocalClusterImpl::ReleaseFaultLease(const std::string& holder) {
  const std::int64_t started = UnixMs();
  const bool held = fault_lease_.Release(holder);
  {
    std::lock_guard<std::mutex> lock(artifacts_mu_);
    holder_artifacts_.erase(holder);
  }
  if (held) std::cerr << "[cluster] fault lease of '" << holder << "' released\n";
  fault_lease_cv_.notify_all();
  return Result(started, holder,
                held ? "fault lease of '" + holder + "' released" : "'" + holder + "' held no fault lease");
}

void LocalClusterImpl::Touch() {
  std::lock_guard<std::mutex> lock(lease_mu_);
  lease_expires_ = Clock::now() + lease_;
}

bool LocalClusterImpl::LeaseExpired() const {
  std::lock_guard<std::mutex> lock(lease_mu_);
  return lease_.count() > 0 && Clock::now() >= lease_expires_;
}

}  // namespace internal

std::unique_ptr<LocalCluster> LocalCluster::Start(LocalClusterOptions options) {
  std::unique_ptr<internal::LocalClusterImpl> impl;
  try {
    impl = std::make_unique<internal::LocalClusterImpl>(std::move(options));
    impl->Start();
  } catch (const ClusterError&) {
    if (impl) impl->Stop();
    throw;
  } catch (const std::exception& e) {
    if (impl) impl->Stop();
    throw ClusterError(grpc::StatusCode::UNAVAILABLE, std::string("local cluster bring-up failed: ") + e.what());
  }
  return std::unique_ptr<LocalCluster>(new LocalCluster(std::move(impl)));
}

LocalCluster::LocalCluster(std::unique_ptr<internal::LocalClusterImpl> impl) : impl_(std::move(impl)) {}
LocalCluster::~LocalCluster() { Stop(); }

v1::ClusterStatus LocalCluster::Status() { return impl_->Status(); }
v1::ClusterStatus LocalCluster::WaitSteady(std::chrono::milliseconds timeout) { return impl_->WaitSteady(timeout); }
v1::ActionResult LocalCluster::KillReplica(const std::string& name) { return impl_->replicas().KillReplica(name); }
v1::ActionResult LocalCluster::KillDatabasePrimary() { return impl_->database().KillPrimary(); }
v1::ActionResult LocalCluster::SetDatabaseLinkFaults(const std::string& member, const ProxyFaults& faults) {
  return impl_->database().SetLinkFaults(member, faults);
}
v1::ActionResult LocalCluster::ClearDatabaseLinkFaults() { return impl_->database().ClearLinkFaults(); }
v1::ActionResult LocalCluster::SetReplicationLinkFaults(const std::string& member, const ProxyFaults& faults) {
  return impl_->database().SetReplicationLinkFaults(member, faults);
}
v1::ActionResult LocalCluster::ClearReplicationLinkFaults() { return impl_->database().ClearReplicationLinkFaults(); }
v1::ActionResult LocalCluster::SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes) {
  return impl_->database().SetReplicationMode(synchronous, maximum_lag_on_failover_bytes);
}
v1::ActionResult LocalCluster::RollingRestart(std::chrono::milliseconds grace, std::chrono::milliseconds min_ready,
                                              std::chrono::milliseconds timeout) {
  return impl_->replicas().RollingRestart(grace, min_ready, timeout);
}
v1::ActionResult LocalCluster::Drain(const std::string& node, std::chrono::milliseconds timeout,
                                     std::chrono::milliseconds grace) {
  return impl_->replicas().Drain(node, timeout, grace);
}
v1::ActionResult LocalCluster::Uncordon(const std::string& node) { return impl_->replicas().Uncordon(node); }
v1::ActionResult LocalCluster::SetReplicaDefects(const std::string& replica,
                                                 const std::map<std::string, std::string>& defects) {
  return impl_->replicas().SetDefects(replica, defects);
}
v1::ActionResult LocalCluster::CollectArtifacts(const std::string& directory) {
  return impl_->CollectArtifacts(directory);
}
v1::ActionResult LocalCluster::RenewLease(std::chrono::milliseconds lease) { return impl_->RenewLease(lease); }
void LocalCluster::Touch() { impl_->Touch(); }
v1::ActionResult LocalCluster::RenewFaultLease(const std::string& holder, std::chrono::milliseconds ttl,
                                               const std::string& artifacts_dir) {
  return impl_->RenewFaultLease(holder, ttl, artifacts_dir);
}
void LocalCluster::RemoveAfterCrash(const std::string& path) { impl_->RemoveAfterCrash(path); }
v1::ActionResult LocalCluster::ReleaseFaultLease(const std::string& holder) { return impl_->ReleaseFaultLease(holder); }
bool LocalCluster::LeaseExpired() const { return impl_->LeaseExpired(); }
std::vector<std::pair<std::string, std::string>> LocalCluster::Replicas() const {
  return impl_->replicas().Replicas();
}
std::vector<std::string> LocalCluster::ReplicaAddresses() const {
  std::vector<std::string> out;
  for (const auto& [name, address] : impl_->replicas().Replicas()) out.push_back(address);
  return out;
}
std::string LocalCluster::ConnectionString() const { return impl_->database().ConnectionString(); }
std::string LocalCluster::ReplicaStore() const { return impl_->ReplicaStore(); }
const std::string& LocalCluster::DataDir() const { return impl_->DataDir(); }
const std::string& LocalCluster::WorkDir() const { return impl_->WorkDir(); }
std::int64_t LocalCluster::StartedUnixMs() const { return impl_->StartedUnixMs(); }
void LocalCluster::Stop() { impl_->Stop(); }

}  // namespace aftershock::cluster
