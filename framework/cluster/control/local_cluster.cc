#include "framework/cluster/control/local_cluster.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <future>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "fixtures/targets/pseudonym/pseudonym_process.h"
#include "fixtures/targets/pseudonym/test_control_client.h"
#include "framework/cluster/control/internal/fault_lease.h"
#include "framework/cluster/control/internal/health_probe.h"
#include "framework/cluster/control/internal/janitor.h"
#include "framework/cluster/internal/free_ports.h"
#include "framework/cluster/internal/pg_processes.h"
#include "framework/process/child_process.h"

namespace aftershock::cluster {
namespace internal {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr const char* kReplicaNames[] = {"a", "b", "c"};
constexpr int kReplicaCount = 3;
constexpr milliseconds kOwnerTick{100};
constexpr milliseconds kProbeTimeout{400};
constexpr int kProbeFailuresToUnready = 2;
constexpr int kLogTailLines = 20;
// A killed primary is restarted once another member leads, or after this long anyway.
constexpr milliseconds kRejoinLeaderWait{30000};

std::int64_t UnixMs() {
  return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string Ms(milliseconds ms) { return std::to_string(ms.count()) + " ms"; }

bool AnyFault(const ProxyFaults& f) {
  return f.latency.count() != 0 || f.jitter.count() != 0 || f.blackhole || f.reset || f.bandwidth_bytes_per_second != 0;
}

std::string Join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : separator) + part;
  return out;
}

v1::ActionResult Result(std::int64_t started, const std::string& target, const std::string& summary) {
  v1::ActionResult result;
  result.set_summary(summary);
  result.set_target(target);
  result.set_started_unix_ms(started);
  result.set_finished_unix_ms(UnixMs());
  return result;
}

// "a" or "pg-a" -> "a".
std::string MemberKey(const std::string& name) { return name.rfind("pg-", 0) == 0 ? name.substr(3) : name; }

bool HelpOffersPostgres(const std::string& binary, const std::string& scratch) {
  const std::string out = scratch + "/pseudonym-help.txt";
  process::ChildOptions options;
  options.program = binary;
  options.args = {"--help"};
  options.log_path = out;
  try {
    process::ChildProcess child = process::ChildProcess::Start(options);
    child.Wait(std::chrono::seconds(10));
  } catch (const std::exception&) {
    return false;
  }
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  std::error_code ignored;
  fs::remove(out, ignored);
  return text.str().find("postgres") != std::string::npos;
}

}  // namespace

struct ReplicaSlot {
  std::string name;
  std::string node;
  std::string zone;
  int port = 0;
  std::string log_path;
  std::optional<process::ChildProcess> child;
  pid_t last_pid = 0;
  bool ready = false;
  Clock::time_point ready_since{};
  int probe_failures = 0;
  std::uint32_t restarts = 0;
  bool cordoned = false;
  bool held = false;          // an action owns it (stopping it on purpose): do not restart
  bool start_now = false;     // start as soon as possible, without back-off
  bool crash_pending = false;  // exited on its own: restart after the back-off
  Clock::time_point restart_due{};
  milliseconds backoff{0};
  std::optional<int> last_exit_code;
  // The defects the supervisor set on the current process ("" none); a stall-only defect ends at
  // defects_until by itself.
  std::string defects;
  std::optional<Clock::time_point> defects_until;

  std::string address() const { return "127.0.0.1:" + std::to_string(port); }
  pid_t pid() const { return child ? child->pid() : 0; }
};

class LocalClusterImpl {
 public:
  explicit LocalClusterImpl(LocalClusterOptions options) : options_(std::move(options)) {
    owner_ = std::thread([this] { OwnerLoop(); });
  }
  ~LocalClusterImpl() { Stop(); }

  void Start();
  void Stop();

  v1::ClusterStatus Status();
  v1::ClusterStatus WaitSteady(milliseconds timeout);
  v1::ActionResult KillReplica(const std::string& name);
  v1::ActionResult KillDatabasePrimary();
  v1::ActionResult SetDatabaseLinkFaults(const std::string& member, const ProxyFaults& faults);
  v1::ActionResult ClearDatabaseLinkFaults();
  v1::ActionResult SetReplicationLinkFaults(const std::string& member, const ProxyFaults& faults);
  v1::ActionResult ClearReplicationLinkFaults();
  v1::ActionResult SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes);
  v1::ActionResult RollingRestart(milliseconds grace, milliseconds min_ready, milliseconds timeout);
  v1::ActionResult Drain(const std::string& node, milliseconds timeout, milliseconds grace);
  v1::ActionResult Uncordon(const std::string& node);
  v1::ActionResult SetReplicaDefects(const std::string& replica, const pseudonym::v1::Defects& defects);
  v1::ActionResult CollectArtifacts(const std::string& directory);
  v1::ActionResult RenewLease(milliseconds lease);
  void Touch();
  bool LeaseExpired() const;
  v1::ActionResult RenewFaultLease(const std::string& holder, milliseconds ttl);
  v1::ActionResult ReleaseFaultLease(const std::string& holder);

  std::vector<std::pair<std::string, std::string>> Replicas() const;
  std::string ConnectionString() const { return conninfo_; }
  std::string ReplicaStore() const { return store_; }
  const std::string& DataDir() const { return data_dir_; }
  const std::string& WorkDir() const { return work_dir_; }
  std::int64_t StartedUnixMs() const { return started_unix_ms_; }

 private:
  // Runs `task` on the owner thread and waits for it; rethrows what it throws.
  void RunOnOwner(std::function<void()> task);
  void OwnerLoop();
  void Reconcile();
  void ProbeReadiness();
  void StartReplicaLocked(ReplicaSlot& slot);
  ReplicaSlot& SlotByName(const std::string& name);
  ReplicaSlot& SlotByNode(const std::string& node);
  // Waits (releasing mu_) until pred() or the deadline; true when pred() held.
  bool WaitFor(std::unique_lock<std::mutex>& lock, Clock::time_point deadline, const std::function<bool()>& pred);
  // Names every replica other than `except` that is not ready (and not cordoned).
  std::string OthersNotReadyLocked(const std::string& except) const;
  // Moves the replica's process out (held) and stops it gracefully outside the lock.
  std::optional<int> EvictLocked(std::unique_lock<std::mutex>& lock, ReplicaSlot& slot, milliseconds grace);
  static bool DatabaseHealthy(const std::vector<MemberStatus>& members, bool synchronous, std::string* reason);
  // Applies `set` to the proxies of `member` ("" = all) in `proxies`; the summary names them.
  v1::ActionResult SetLinkFaults(std::vector<std::unique_ptr<FaultProxy>>& proxies, const char* what,
                                 const std::string& member, const ProxyFaults& faults);
  std::string ReplicaLogTail(const ReplicaSlot& slot) const;
  // The fault lease's thread: reverts every fault in force once no holder is live.
  void FaultLeaseLoop();
  // False when a revert step failed (retried later).
  bool RevertHeldFaults(const FaultLease::Due& due);
  static bool DefectsInForce(const ReplicaSlot& slot, Clock::time_point now) {
    return !slot.defects.empty() && (!slot.defects_until || now < *slot.defects_until);
  }

  LocalClusterOptions options_;
  std::string work_dir_;
  bool created_work_dir_ = false;
  std::string data_dir_;
  std::string conninfo_;
  std::string store_;
  std::vector<std::string> store_args_;
  std::int64_t started_unix_ms_ = UnixMs();

  // Owner thread: forks every child and runs the reconcile loop.
  std::thread owner_;
  std::mutex tasks_mu_;
  std::deque<std::packaged_task<void()>> tasks_;
  bool owner_exit_ = false;

  // Replica state, cordons, lease.
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<ReplicaSlot> slots_;
  bool reconcile_ = false;
  bool stopping_ = false;
  milliseconds lease_{0};
  Clock::time_point lease_expires_{};
  std::map<pid_t, std::unique_ptr<HealthProbe>> probes_;  // owner thread only

  // The database; its calls are not thread-safe.
  std::mutex db_mu_;
  std::unique_ptr<PatroniCluster> db_;
  std::vector<std::string> member_names_;
  std::vector<std::unique_ptr<FaultProxy>> proxies_;  // index-aligned with member_names_
  // In front of each member on the replication path (its Patroni connect_address); may be empty.
  std::vector<std::unique_ptr<FaultProxy>> replication_proxies_;
  std::optional<std::pair<std::string, Clock::time_point>> pending_rejoin_;  // guarded by db_mu_

  // Serializes the disruptive actions (rolling restart, drain, uncordon).
  std::mutex action_mu_;

  // The fault lease and its thread.
  FaultLease fault_lease_;
  std::thread fault_lease_thread_;
  std::mutex fault_lease_mu_;
  std::condition_variable fault_lease_cv_;
  bool fault_lease_exit_ = false;

  std::optional<process::ChildProcess> janitor_;
  bool stopped_ = false;
  std::mutex stop_mu_;
};

void LocalClusterImpl::RunOnOwner(std::function<void()> task) {
  std::packaged_task<void()> packaged(std::move(task));
  std::future<void> done = packaged.get_future();
  {
    std::lock_guard<std::mutex> lock(tasks_mu_);
    if (owner_exit_) throw ClusterError(grpc::StatusCode::UNAVAILABLE, "the local cluster is stopping");
    tasks_.push_back(std::move(packaged));
  }
  changed_.notify_all();
  done.get();
}

void LocalClusterImpl::OwnerLoop() {
  while (true) {
    std::deque<std::packaged_task<void()>> tasks;
    {
      std::lock_guard<std::mutex> lock(tasks_mu_);
      tasks.swap(tasks_);
      if (tasks.empty() && owner_exit_) return;
    }
    for (auto& task : tasks) task();
    Reconcile();
    ProbeReadiness();
    {
      // Member rejoin after a primary kill; skipped this tick while a Status() holds the database.
      std::unique_lock<std::mutex> db_lock(db_mu_, std::try_to_lock);
      // It waits for another leader first: back before its leader key expires, the old primary
      // would simply resume, and there would have been no failover at all.
      const auto now = Clock::now();
      if (db_lock.owns_lock() && pending_rejoin_ && now >= pending_rejoin_->second && db_ &&
          (now >= pending_rejoin_->second + kRejoinLeaderWait || [&] {
            const std::string primary = db_->PrimaryName();
            return !primary.empty() && primary != pending_rejoin_->first;
          }())) {
        const std::string name = pending_rejoin_->first;
        pending_rejoin_.reset();
        try {
          db_->RestartMember(name);
          std::cerr << "[cluster] restarted database member pg-" << name << "\n";
        } catch (const std::exception& e) {
          std::cerr << "[cluster] restarting database member pg-" << name << " failed: " << e.what() << "\n";
        }
      }
    }
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, kOwnerTick);
  }
}

void LocalClusterImpl::StartReplicaLocked(ReplicaSlot& slot) {
  process::ChildOptions child;
  child.program = options_.pseudonym_binary.empty() ? pseudonym::DefaultPseudonymBinary() : options_.pseudonym_binary;
  child.args = {"--listen=" + slot.address(), "--replica-name=" + slot.name, "--enable-test-control"};
  std::ostringstream grace;
  grace << options_.replica_grace_seconds;
  child.args.push_back("--grace-seconds=" + grace.str());
  child.args.insert(child.args.end(), store_args_.begin(), store_args_.end());
  child.args.insert(child.args.end(), options_.replica_extra_args.begin(), options_.replica_extra_args.end());
  child.log_path = slot.log_path;
  child.die_with_parent = true;
  child.new_process_group = true;
  {
    std::ofstream log(slot.log_path, std::ios::app);
    log << "=== [supervisor] starting replica " << slot.name << " on " << slot.node << " at unix_ms " << UnixMs()
        << "\n";
  }
  slot.child.emplace(process::ChildProcess::Start(child));
  slot.last_pid = slot.child->pid();
  slot.ready = false;
  slot.probe_failures = 0;
  slot.defects.clear();  // a new process starts without defects
  slot.defects_until.reset();
}

void LocalClusterImpl::Reconcile() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!reconcile_ || stopping_) return;
  const auto now = Clock::now();
  for (ReplicaSlot& slot : slots_) {
    if (slot.child && !slot.child->Running()) {
      slot.last_exit_code = slot.child->TryWait();
      std::cerr << "[cluster] replica " << slot.name << " (pid " << slot.child->pid() << ") exited with code "
                << slot.last_exit_code.value_or(-1) << "\n";
      slot.child.reset();
      slot.ready = false;
      if (slot.backoff.count() == 0) slot.backoff = options_.restart_backoff_initial;
      slot.restart_due = now + slot.backoff;
      slot.backoff = std::min(slot.backoff * 2, options_.restart_backoff_max);
      slot.crash_pending = true;
      changed_.notify_all();
    }
    if (slot.ready && now - slot.ready_since >= options_.restart_backoff_reset) slot.backoff = milliseconds(0);
    if (slot.child || slot.cordoned || slot.held) continue;
    if (!slot.start_now && !(slot.crash_pending && now >= slot.restart_due)) continue;
    try {
      StartReplicaLocked(slot);
      if (slot.crash_pending) ++slot.restarts;
      slot.crash_pending = false;
      slot.start_now = false;
    } catch (const std::exception& e) {
      std::cerr << "[cluster] starting replica " << slot.name << " failed: " << e.what() << "\n";
      slot.start_now = false;
      slot.crash_pending = true;
      if (slot.backoff.count() == 0) slot.backoff = options_.restart_backoff_initial;
      slot.restart_due = now + slot.backoff;
      slot.backoff = std::min(slot.backoff * 2, options_.restart_backoff_max);
    }
    changed_.notify_all();
  }
}

void LocalClusterImpl::ProbeReadiness() {
  std::vector<std::pair<std::string, pid_t>> targets;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!reconcile_ || stopping_) return;
    for (const ReplicaSlot& slot : slots_) {
      if (slot.child) targets.emplace_back(slot.address(), slot.child->pid());
    }
  }
  // A fresh channel per process, so a restarted replica is not hidden behind reconnect back-off.
  for (auto it = probes_.begin(); it != probes_.end();) {
    const bool live = std::any_of(targets.begin(), targets.end(), [&](const auto& t) { return t.second == it->first; });
    it = live ? std::next(it) : probes_.erase(it);
  }
  std::vector<std::pair<pid_t, ProbeResult>> results;
  for (const auto& [address, pid] : targets) {
    auto& probe = probes_[pid];
    if (!probe) probe = std::make_unique<HealthProbe>(address);
    results.emplace_back(pid, probe->Check(kProbeTimeout));
  }
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = Clock::now();
  for (const auto& [pid, result] : results) {
    for (ReplicaSlot& slot : slots_) {
      if (!slot.child || slot.child->pid() != pid) continue;
      const bool was_ready = slot.ready;
      if (result == ProbeResult::kServing) {
        slot.probe_failures = 0;
        if (!slot.ready) slot.ready_since = now;
        slot.ready = true;
      } else if (result == ProbeResult::kNotServing) {
        slot.ready = false;  // draining: out of rotation at once
      } else if (++slot.probe_failures >= kProbeFailuresToUnready) {
        slot.ready = false;
      }
      if (was_ready != slot.ready) changed_.notify_all();
    }
  }
}

bool LocalClusterImpl::WaitFor(std::unique_lock<std::mutex>& lock, Clock::time_point deadline,
                               const std::function<bool()>& pred) {
  while (!pred()) {
    if (stopping_) throw ClusterError(grpc::StatusCode::UNAVAILABLE, "the local cluster is stopping");
    if (Clock::now() >= deadline) return false;
    changed_.wait_until(lock, std::min(deadline, Clock::now() + milliseconds(200)));
  }
  return true;
}

ReplicaSlot& LocalClusterImpl::SlotByName(const std::string& name) {
  for (ReplicaSlot& slot : slots_) {
    if (slot.name == name) return slot;
  }
  throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, "no replica named '" + name + "' (a, b or c)");
}

ReplicaSlot& LocalClusterImpl::SlotByNode(const std::string& node) {
  for (ReplicaSlot& slot : slots_) {
    if (slot.node == node) return slot;
  }
  throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, "no node named '" + node + "' (node-a, node-b or node-c)");
}

std::string LocalClusterImpl::OthersNotReadyLocked(const std::string& except) const {
  std::string out;
  for (const ReplicaSlot& slot : slots_) {
    if (slot.name == except || slot.ready) continue;
    out += (out.empty() ? "" : ", ") + std::string("replica ") + slot.name +
           (slot.cordoned ? " (node " + slot.node + " cordoned)" : "");
  }
  return out;
}

std::string LocalClusterImpl::ReplicaLogTail(const ReplicaSlot& slot) const {
  return pseudonym::TailOfFile(slot.log_path, kLogTailLines);
}

std::optional<int> LocalClusterImpl::EvictLocked(std::unique_lock<std::mutex>& lock, ReplicaSlot& slot,
                                                 milliseconds grace) {
  if (!slot.child) return std::nullopt;
  slot.held = true;
  process::ChildProcess child = std::move(*slot.child);
  slot.child.reset();
  slot.ready = false;
  changed_.notify_all();
  lock.unlock();
  const int code = child.Stop(grace);
  lock.lock();
  slot.held = false;
  slot.last_exit_code = code;
  changed_.notify_all();
  return code;
}

bool LocalClusterImpl::DatabaseHealthy(const std::vector<MemberStatus>& members, bool synchronous,
                                       std::string* reason) {
  int running = 0;
  int leaders = 0;
  int sync = 0;
  int streaming = 0;
  std::string why;
  for (const MemberStatus& m : members) {
    if (m.state == "running") {
      ++running;
    } else {
      why += (why.empty() ? "" : "; ") + std::string("member pg-") + m.name + " is " + (m.state.empty() ? "?" : m.state);
    }
    if (m.role == "leader") {
      ++leaders;
    } else if (m.streaming) {
      ++streaming;
    }
    if (m.role == "sync_standby") ++sync;
  }
  if (leaders != 1) why += (why.empty() ? "" : "; ") + std::string("no leader");
  if (synchronous && sync < 1) why += (why.empty() ? "" : "; ") + std::string("no sync_standby");
  if (leaders == 1 && streaming < 2) why += (why.empty() ? "" : "; ") + std::string("a replica is not streaming");
  const bool healthy =
      members.size() == 3 && running == 3 && leaders == 1 && (sync >= 1 || !synchronous) && streaming >= 2;
  if (reason != nullptr) *reason = healthy ? "" : "database: " + why;
  return healthy;
}

void LocalClusterImpl::Start() {
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

  // 0. A fault proxy in front of each member on the replication path, so that a test can make a
  //    standby lag (latency) without touching the service's own links. Patroni names it as the
  //    member's connect_address, so the member ports are fixed here, before the database starts.
  if (options_.replication_through_proxy) {
    PatroniClusterOptions& db = options_.database;
    if (db.pg_port_base == 0) {
      const std::optional<int> base = internal::FindFreePortBlock(db.host, 3, 20000, 60000, 64);
      if (!base) throw ClusterError(grpc::StatusCode::UNAVAILABLE, "no free block of 3 PostgreSQL ports on " + db.host);
      db.pg_port_base = *base;
    }
    db.replication_ports.clear();
    for (int i = 0; i < 3; ++i) {
      const std::string name = std::string(1, static_cast<char>('a' + i));
      replication_proxies_.push_back(FaultProxy::Start("repl-" + name, "127.0.0.1", 0, db.host,
                                                       static_cast<std::uint16_t>(db.pg_port_base + i)));
      db.replication_ports.push_back(replication_proxies_.back()->port());
    }
  }

  // 1. The database (forked by the owner thread, like every child).
  RunOnOwner([this] {
    auto db = PatroniCluster::Start(options_.database);
    std::lock_guard<std::mutex> lock(db_mu_);
    db_ = std::move(db);
    data_dir_ = db_->DataDir();
    member_names_ = db_->MemberNames();
  });

  // The janitor, as soon as there is something to clean up after a SIGKILL.
  if (options_.janitor) {
    RunOnOwner([this] {
      janitor_.emplace(StartJanitor(::getpid(), data_dir_, work_dir_, options_.janitor_state_file,
                                    work_dir_ + "/janitor.log"));
    });
  }

  // 2. A fault proxy in front of each instance; the replicas connect through them.
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    const auto endpoints = db_->MemberEndpoints();
    std::vector<std::pair<std::string, int>> client_endpoints;
    for (std::size_t i = 0; i < endpoints.size(); ++i) {
      proxies_.push_back(FaultProxy::Start("pg-" + member_names_.at(i), "127.0.0.1", 0, endpoints[i].first,
                                           static_cast<std::uint16_t>(endpoints[i].second)));
      client_endpoints.emplace_back("127.0.0.1", proxies_.back()->port());
    }
    db_->SetClientEndpoints(client_endpoints);
    conninfo_ = db_->ConnectionString();
  }

  // 3. The replicas' store and ports (stable across restarts).
  const std::string binary =
      options_.pseudonym_binary.empty() ? pseudonym::DefaultPseudonymBinary() : options_.pseudonym_binary;
  std::vector<std::string> store_args;
  if (options_.replica_store_args) {
    store_args = *options_.replica_store_args;
  } else if (HelpOffersPostgres(binary, work_dir_)) {
    store_args = {"--store=postgres", "--postgres-conninfo={conninfo}"};
  } else {
    store_args = {"--store=memory"};
  }
  store_ = "memory";
  for (std::string& arg : store_args) {
    const std::size_t at = arg.find("{conninfo}");
    if (at != std::string::npos) arg.replace(at, 10, conninfo_);
    if (arg.rfind("--store=", 0) == 0) store_ = arg.substr(8);
  }
  store_args_ = store_args;

  std::vector<int> db_ports;
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    db_ports = db_->PgPorts();
    for (int p : db_->RestPorts()) db_ports.push_back(p);
    db_ports.push_back(db_->EtcdPort());
  }
  int base = -1;
  for (int attempt = 0; attempt < 16 && base < 0; ++attempt) {
    const int candidate = FindFreePortBlock("127.0.0.1", kReplicaCount, 20000, 32000, 64).value_or(-1);
    const bool clash = std::any_of(db_ports.begin(), db_ports.end(),
                                   [&](int p) { return p >= candidate && p < candidate + kReplicaCount; });
    if (candidate > 0 && !clash) base = candidate;
  }
  if (base < 0) throw ClusterError(grpc::StatusCode::RESOURCE_EXHAUSTED, "found no free ports for the replicas");

  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int i = 0; i < kReplicaCount; ++i) {
      ReplicaSlot slot;
      slot.name = kReplicaNames[i];
      slot.node = "node-" + slot.name;
      slot.zone = "zone-" + slot.name;
      slot.port = base + i;
      slot.log_path = work_dir_ + "/replica-" + slot.name + ".log";
      slot.start_now = true;
      slots_.push_back(std::move(slot));
    }
    lease_ = options_.lease;
    lease_expires_ = Clock::now() + lease_;
    reconcile_ = true;
  }
  changed_.notify_all();

  // 4. Every replica ready.
  {
    std::unique_lock<std::mutex> lock(mu_);
    const auto deadline = Clock::now() + options_.replica_ready_timeout;
    const bool ready = WaitFor(lock, deadline, [&] {
      return std::all_of(slots_.begin(), slots_.end(), [](const ReplicaSlot& s) { return s.ready; });
    });
    if (!ready) {
      std::string what;
      for (const ReplicaSlot& slot : slots_) {
        if (slot.ready) continue;
        what += "replica " + slot.name + " (" + slot.address() + ", " +
                (slot.child ? "pid " + std::to_string(slot.child->pid()) + " running"
                            : "not running, last exit " + std::to_string(slot.last_exit_code.value_or(-1))) +
                ") was not SERVING within " + Ms(options_.replica_ready_timeout) + "; log " + slot.log_path +
                ":\n" + ReplicaLogTail(slot);
      }
      throw ClusterError(grpc::StatusCode::DEADLINE_EXCEEDED, what);
    }
  }

  // 5. Steady state as a whole.
  WaitSteady(milliseconds(std::chrono::seconds(60)));
  started_unix_ms_ = UnixMs();

  // 6. From now on faults can be applied: the fault lease's dead-man's switch.
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
    if (!due) continue;
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
  }
}

bool LocalClusterImpl::RevertHeldFaults(const FaultLease::Due& due) {
  std::vector<std::string> db_links, replication_links;
  bool asynchronous = false;
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    for (std::size_t i = 0; i < proxies_.size() && i < member_names_.size(); ++i) {
      if (AnyFault(proxies_[i]->faults())) {
        db_links.push_back("pg-" + member_names_[i] + " {" + ProxyFaultsToProto(proxies_[i]->faults()).ShortDebugString() + "}");
      }
    }
    for (std::size_t i = 0; i < replication_proxies_.size() && i < member_names_.size(); ++i) {
      if (AnyFault(replication_proxies_[i]->faults())) {
        replication_links.push_back("pg-" + member_names_[i] + " {" +
                                    ProxyFaultsToProto(replication_proxies_[i]->faults()).ShortDebugString() + "}");
      }
    }
    asynchronous = db_ && !db_->Synchronous();
  }
  std::vector<std::pair<std::string, std::string>> defects;  // replica, defects
  std::vector<std::string> cordoned;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = Clock::now();
    for (const ReplicaSlot& slot : slots_) {
      if (slot.child && DefectsInForce(slot, now)) defects.emplace_back(slot.name, slot.defects);
      if (slot.cordoned) cordoned.push_back(slot.node);
    }
  }
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
    attempt("database link faults on " + Join(db_links, ", "), [&] { ClearDatabaseLinkFaults(); });
  }
  if (!replication_links.empty()) {
    attempt("replication link faults on " + Join(replication_links, ", "), [&] { ClearReplicationLinkFaults(); });
  }
  for (const auto& [name, text] : defects) {
    attempt("defects on replica " + name + " {" + text + "}", [&] { SetReplicaDefects(name, {}); });
  }
  if (asynchronous) {
    attempt("asynchronous replication (strict synchronous again)", [&] { SetReplicationMode(true, 0); });
  }
  for (const std::string& node : cordoned) attempt("cordon of " + node, [&] { Uncordon(node); });

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
  const milliseconds grace(static_cast<long>(options_.replica_grace_seconds * 1000) + 2000);

  // 1. Replicas: SIGTERM all together, then reap each within the grace.
  std::vector<process::ChildProcess> replicas;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    reconcile_ = false;
  }
  changed_.notify_all();
  // 0. The fault lease's thread (a revert in progress gives up: the cluster is stopping).
  {
    std::lock_guard<std::mutex> lock(fault_lease_mu_);
    fault_lease_exit_ = true;
  }
  fault_lease_cv_.notify_all();
  if (fault_lease_thread_.joinable()) fault_lease_thread_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (ReplicaSlot& slot : slots_) {
      if (slot.child) replicas.push_back(std::move(*slot.child));
      slot.child.reset();
      slot.ready = false;
    }
  }
  for (auto& child : replicas) child.Signal(SIGTERM);
  for (auto& child : replicas) child.Stop(grace);
  replicas.clear();

  // 2. The database behind the proxies, then any postmaster it left behind.
  std::unique_ptr<PatroniCluster> db;
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    pending_rejoin_.reset();
    db = std::move(db_);
  }
  if (db) {
    std::vector<pid_t> postmasters;
    for (const std::string& name : db->MemberNames()) {
      if (auto pid = LivePostmasterPid(db->DataDir() + "/" + name + "/data")) postmasters.push_back(*pid);
    }
    try {
      db->Stop();
    } catch (const std::exception& e) {
      std::cerr << "[cluster] database stop: " << e.what() << "\n";
    }
    KillLeftoverPostgres(postmasters, data_dir_);
    db.reset();
  }
  proxies_.clear();
  replication_proxies_.clear();

  // 3. The owner thread, the janitor, the scratch directory.
  {
    std::lock_guard<std::mutex> lock(tasks_mu_);
    owner_exit_ = true;
  }
  changed_.notify_all();
  if (owner_.joinable()) owner_.join();
  probes_.clear();
  if (janitor_) janitor_->Stop(milliseconds(2000));
  janitor_.reset();
  if (created_work_dir_ && !work_dir_.empty()) {
    std::error_code ignored;
    fs::remove_all(work_dir_, ignored);
  }
}

v1::ClusterStatus LocalClusterImpl::Status() {
  v1::ClusterStatus status;
  std::string reasons;
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    if (db_) {
      std::vector<MemberStatus> members = db_->Status();
      std::string db_reason;
      if (!DatabaseHealthy(members, db_->Synchronous(), &db_reason)) reasons = db_reason;
      if (pending_rejoin_) {
        reasons += (reasons.empty() ? "" : "; ") + std::string("member pg-") + pending_rejoin_->first +
                   " is waiting to rejoin";
      }
      for (std::size_t i = 0; i < members.size(); ++i) {
        const MemberStatus& m = members[i];
        v1::DatabaseMember* out = status.add_members();
        out->set_name("pg-" + m.name);
        out->set_node("node-" + m.name);
        out->set_role(m.role);
        out->set_state(m.state);
        out->set_timeline(m.timeline);
        out->set_lag_bytes(m.lag_bytes.value_or(-1));
        out->set_pg_port(m.pg_port);
        out->set_patroni_pid(m.patroni_pid > 0 ? m.patroni_pid : 0);
        out->set_postmaster_pid(m.postmaster_pid.value_or(0));
        if (m.role == "leader") status.set_primary("pg-" + m.name);
        for (std::size_t p = 0; p < member_names_.size() && p < proxies_.size(); ++p) {
          if (member_names_[p] != m.name) continue;
          out->set_proxy_port(proxies_[p]->port());
          *out->mutable_link_faults() = ProxyFaultsToProto(proxies_[p]->faults());
          out->set_link_connections(proxies_[p]->stats().active);
        }
        for (std::size_t p = 0; p < member_names_.size() && p < replication_proxies_.size(); ++p) {
          if (member_names_[p] != m.name) continue;
          out->set_replication_proxy_port(replication_proxies_[p]->port());
          *out->mutable_replication_link_faults() = ProxyFaultsToProto(replication_proxies_[p]->faults());
        }
      }
    } else {
      reasons = "database: not started";
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const ReplicaSlot& slot : slots_) {
      v1::Replica* out = status.add_replicas();
      out->set_name(slot.name);
      out->set_node(slot.node);
      out->set_zone(slot.zone);
      out->set_address(slot.address());
      out->set_pid(slot.pid());
      out->set_ready(slot.ready);
      out->set_restarts(slot.restarts);
      out->set_node_cordoned(slot.cordoned);
      if (slot.child && DefectsInForce(slot, Clock::now())) out->set_defects(slot.defects);
      if (!slot.ready && !slot.cordoned) {
        reasons += (reasons.empty() ? "" : "; ") + std::string("replica ") + slot.name + " not ready" +
                   (slot.child ? "" : " (not running)");
      }
    }
    if (slots_.empty()) reasons += (reasons.empty() ? "" : "; ") + std::string("replicas: not started");
    status.set_lease_expires_unix_ms(
        UnixMs() + std::chrono::duration_cast<milliseconds>(lease_expires_ - Clock::now()).count());
  }
  status.set_steady(reasons.empty());
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    status.set_replication(db_ && !db_->Synchronous() ? "asynchronous" : "synchronous");
  }
  status.set_not_steady_reason(reasons);
  status.set_started_unix_ms(started_unix_ms_);
  status.set_replica_store(store_);
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
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) throw ClusterError(grpc::StatusCode::UNAVAILABLE, "the local cluster is stopping");
    }
    std::this_thread::sleep_for(std::min(milliseconds(300), std::chrono::duration_cast<milliseconds>(
                                                               deadline - Clock::now() + milliseconds(1))));
  }
}

v1::ActionResult LocalClusterImpl::KillReplica(const std::string& name) {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> lock(mu_);
  ReplicaSlot* target = nullptr;
  if (name.empty()) {
    std::vector<ReplicaSlot*> ready;
    for (ReplicaSlot& slot : slots_) {
      if (slot.child && slot.ready && !slot.cordoned) ready.push_back(&slot);
    }
    if (ready.empty()) throw ClusterError(grpc::StatusCode::FAILED_PRECONDITION, "no ready replica to kill");
    std::random_device rd;
    target = ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rd)];
  } else {
    target = &SlotByName(name);
  }
  if (!target->child || target->held) {
    throw ClusterError(grpc::StatusCode::FAILED_PRECONDITION, "replica " + target->name + " is not running");
  }
  const pid_t pid = target->child->pid();
  target->child->Signal(SIGKILL);
  target->ready = false;
  changed_.notify_all();
  return Result(started, target->name, "killed replica " + target->name + " (pid " + std::to_string(pid) + ")");
}

v1::ActionResult LocalClusterImpl::KillDatabasePrimary() {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> lock(db_mu_);
  if (!db_) throw ClusterError(grpc::StatusCode::UNAVAILABLE, "the database is not running");
  if (pending_rejoin_) {
    throw ClusterError(grpc::StatusCode::FAILED_PRECONDITION,
                       "member pg-" + pending_rejoin_->first + " has not rejoined yet; never two instances down");
  }
  std::string reason;
  if (!DatabaseHealthy(db_->Status(), db_->Synchronous(), &reason)) {
    throw ClusterError(grpc::StatusCode::FAILED_PRECONDITION, "refused: the database is not healthy (" + reason + ")");
  }
  const std::string killed = db_->KillPrimary();
  pending_rejoin_.emplace(killed, Clock::now() + options_.member_rejoin_delay);
  return Result(started, "pg-" + killed,
                "killed primary pg-" + killed + "; restarting it once another member leads (after at least " +
                    Ms(options_.member_rejoin_delay) + ")");
}

v1::ActionResult LocalClusterImpl::SetLinkFaults(std::vector<std::unique_ptr<FaultProxy>>& proxies, const char* what,
                                                 const std::string& member, const ProxyFaults& faults) {
  const std::int64_t started = UnixMs();
  const std::string key = MemberKey(member);
  std::string targets;
  if (AnyFault(faults)) fault_lease_.FaultApplied(options_.unheld_fault_hold);
  for (std::size_t i = 0; i < proxies.size() && i < member_names_.size(); ++i) {
    if (!key.empty() && member_names_[i] != key) continue;
    proxies[i]->SetFaults(faults);
    targets += (targets.empty() ? "" : ",") + std::string("pg-") + member_names_[i];
  }
  if (targets.empty()) {
    if (proxies.empty()) {
      throw ClusterError(grpc::StatusCode::FAILED_PRECONDITION,
                         std::string("this cluster has no proxies on its ") + what + " links");
    }
    throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, "no database member '" + member + "' (pg-a, pg-b, pg-c)");
  }
  std::ostringstream summary;
  summary << what << " link faults on " << targets << ": latency " << faults.latency.count() << " ms, jitter "
          << faults.jitter.count() << " ms" << (faults.blackhole ? ", blackhole" : "") << (faults.reset ? ", reset" : "");
  if (faults.bandwidth_bytes_per_second > 0) summary << ", " << faults.bandwidth_bytes_per_second << " B/s";
  return Result(started, targets, summary.str());
}

v1::ActionResult LocalClusterImpl::SetDatabaseLinkFaults(const std::string& member, const ProxyFaults& faults) {
  std::lock_guard<std::mutex> lock(db_mu_);
  return SetLinkFaults(proxies_, "database", member, faults);
}

v1::ActionResult LocalClusterImpl::SetReplicationLinkFaults(const std::string& member, const ProxyFaults& faults) {
  std::lock_guard<std::mutex> lock(db_mu_);
  return SetLinkFaults(replication_proxies_, "replication", member, faults);
}

v1::ActionResult LocalClusterImpl::ClearReplicationLinkFaults() {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> lock(db_mu_);
  for (auto& proxy : replication_proxies_) proxy->ClearFaults();
  return Result(started, "all", "cleared the faults on every replication link");
}

v1::ActionResult LocalClusterImpl::SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes) {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> lock(db_mu_);
  if (!db_) throw ClusterError(grpc::StatusCode::UNAVAILABLE, "the database is not running");
  if (!synchronous) fault_lease_.FaultApplied(options_.unheld_fault_hold);
  try {
    db_->SetReplicationMode(synchronous, maximum_lag_on_failover_bytes, std::chrono::seconds(60));
  } catch (const std::exception& e) {
    throw ClusterError(grpc::StatusCode::DEADLINE_EXCEEDED, e.what());
  }
  const std::int64_t lag = maximum_lag_on_failover_bytes > 0 ? maximum_lag_on_failover_bytes : 1048576;
  return Result(started, "database",
                synchronous ? "replication is synchronous (strict, one named standby)"
                            : "replication is asynchronous (maximum_lag_on_failover " + std::to_string(lag) + " bytes)");
}

v1::ActionResult LocalClusterImpl::ClearDatabaseLinkFaults() {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> lock(db_mu_);
  for (auto& proxy : proxies_) proxy->ClearFaults();
  return Result(started, "all", "cleared the faults on every database link");
}

v1::ActionResult LocalClusterImpl::RollingRestart(milliseconds grace, milliseconds min_ready, milliseconds timeout) {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> action(action_mu_);
  const auto deadline = Clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mu_);
  std::string summary;
  for (ReplicaSlot& slot : slots_) {
    if (slot.cordoned) {
      summary += (summary.empty() ? "" : "; ") + slot.name + " skipped (node cordoned)";
      continue;
    }
    // Budget: every other replica ready before this one goes.
    if (!WaitFor(lock, deadline, [&] { return OthersNotReadyLocked(slot.name).empty(); })) {
      throw ClusterError(grpc::StatusCode::DEADLINE_EXCEEDED, "rolling restart timed out after " + Ms(timeout) +
                                                                  " before " + slot.name +
                                                                  ": not ready: " + OthersNotReadyLocked(slot.name));
    }
    const pid_t old_pid = slot.pid();
    const std::optional<int> code = EvictLocked(lock, slot, grace);
    slot.start_now = true;
    slot.crash_pending = false;
    changed_.notify_all();
    const bool ready = WaitFor(lock, deadline, [&] {
      return slot.child && slot.child->pid() != old_pid && slot.ready && Clock::now() - slot.ready_since >= min_ready;
    });
    if (!ready) {
      throw ClusterError(grpc::StatusCode::DEADLINE_EXCEEDED,
                         "rolling restart timed out after " + Ms(timeout) + ": replica " + slot.name +
                             " not ready for " + Ms(min_ready) + " after its restart; log " + slot.log_path);
    }
    summary += (summary.empty() ? "" : "; ") + slot.name + " pid " + std::to_string(old_pid) + " -> " +
               std::to_string(slot.pid()) + " (exit " + std::to_string(code.value_or(-1)) + ")";
  }
  return Result(started, "replicas", "rolling restart: " + summary);
}

v1::ActionResult LocalClusterImpl::Drain(const std::string& node, milliseconds timeout, milliseconds grace) {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> action(action_mu_);
  const auto deadline = Clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mu_);
  ReplicaSlot& slot = SlotByNode(node);
  fault_lease_.FaultApplied(options_.unheld_fault_hold);
  slot.cordoned = true;
  slot.start_now = false;
  slot.crash_pending = false;
  changed_.notify_all();
  if (!slot.child) return Result(started, node, "cordoned " + node + "; replica " + slot.name + " was not running");
  if (!WaitFor(lock, deadline, [&] { return OthersNotReadyLocked(slot.name).empty(); })) {
    throw ClusterError(grpc::StatusCode::DEADLINE_EXCEEDED,
                       "drain of " + node + " timed out after " + Ms(timeout) +
                           " (disruption budget: at most 1 unavailable replica; not ready: " +
                           OthersNotReadyLocked(slot.name) + "); " + node + " stays cordoned");
  }
  if (!slot.child) return Result(started, node, "cordoned " + node + "; replica " + slot.name + " was not running");
  const pid_t pid = slot.pid();
  const std::optional<int> code = EvictLocked(lock, slot, grace);
  return Result(started, node,
                "drained " + node + ": evicted replica " + slot.name + " (pid " + std::to_string(pid) + ", exit " +
                    std::to_string(code.value_or(-1)) + ")");
}

v1::ActionResult LocalClusterImpl::Uncordon(const std::string& node) {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> action(action_mu_);
  std::unique_lock<std::mutex> lock(mu_);
  ReplicaSlot& slot = SlotByNode(node);
  const bool was_cordoned = slot.cordoned;
  slot.cordoned = false;
  if (!slot.child) slot.start_now = true;
  changed_.notify_all();
  const auto deadline = Clock::now() + options_.replica_ready_timeout;
  if (!WaitFor(lock, deadline, [&] { return slot.child && slot.ready; })) {
    throw ClusterError(grpc::StatusCode::DEADLINE_EXCEEDED,
                       "uncordoned " + node + " but replica " + slot.name + " was not ready within " +
                           Ms(options_.replica_ready_timeout) + "; log " + slot.log_path + ":\n" + ReplicaLogTail(slot));
  }
  return Result(started, node,
                std::string(was_cordoned ? "uncordoned " : "node was not cordoned: ") + node + "; replica " +
                    slot.name + " ready (pid " + std::to_string(slot.pid()) + ")");
}

v1::ActionResult LocalClusterImpl::SetReplicaDefects(const std::string& replica,
                                                     const pseudonym::v1::Defects& defects) {
  const std::int64_t started = UnixMs();
  std::vector<std::pair<std::string, std::string>> targets;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!replica.empty()) SlotByName(replica);
    for (const ReplicaSlot& slot : slots_) {
      if (!replica.empty() && slot.name != replica) continue;
      if (!slot.child) {
        if (!replica.empty() || !slot.cordoned) {
          throw ClusterError(grpc::StatusCode::UNAVAILABLE, "replica " + slot.name + " is not running");
        }
        continue;  // a drained replica gets none
      }
      targets.emplace_back(slot.name, slot.address());
    }
  }
  const bool any = defects.ByteSizeLong() != 0;
  if (any) fault_lease_.FaultApplied(options_.unheld_fault_hold);
  // A stall-only defect ends by itself.
  pseudonym::v1::Defects without_stall = defects;
  without_stall.clear_stall_until_ms_from_now();
  std::optional<Clock::time_point> until;
  if (without_stall.ByteSizeLong() == 0 && defects.stall_until_ms_from_now() > 0) {
    until = Clock::now() + milliseconds(defects.stall_until_ms_from_now());
  }
  std::string names;
  for (const auto& [name, address] : targets) {
    try {
      pseudonym::TestControlClient(address).SetDefects(defects);
    } catch (const std::exception& e) {
      throw ClusterError(grpc::StatusCode::UNAVAILABLE, "replica " + name + ": " + e.what());
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (ReplicaSlot& slot : slots_) {
        if (slot.name != name || !slot.child || slot.address() != address) continue;
        slot.defects = any ? defects.ShortDebugString() : "";
        slot.defects_until = until;
      }
    }
    names += (names.empty() ? "" : ",") + name;
  }
  return Result(started, names, "defects set on replica(s) " + names + ": " + defects.ShortDebugString());
}

v1::ActionResult LocalClusterImpl::CollectArtifacts(const std::string& directory) {
  const std::int64_t started = UnixMs();
  if (directory.empty()) throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, "no directory given");
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) throw ClusterError(grpc::StatusCode::INTERNAL, "cannot create " + directory + ": " + ec.message());
  std::vector<std::string> copied;
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    if (db_) {
      try {
        db_->CopyLogsTo(directory + "/database");
        copied.push_back("database/");
      } catch (const std::exception& e) {
        throw ClusterError(grpc::StatusCode::INTERNAL, e.what());
      }
    }
  }
  std::vector<std::pair<std::string, std::string>> logs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const ReplicaSlot& slot : slots_) logs.emplace_back(slot.log_path, "replica-" + slot.name + ".log");
  }
  if (!options_.supervisor_log_path.empty()) logs.emplace_back(options_.supervisor_log_path, "supervisor.log");
  for (const auto& [from, to] : logs) {
    if (!fs::exists(from, ec)) continue;
    fs::copy_file(from, fs::path(directory) / to, fs::copy_options::overwrite_existing, ec);
    if (ec) throw ClusterError(grpc::StatusCode::INTERNAL, "copy " + from + ": " + ec.message());
    copied.push_back(to);
  }
  const v1::ClusterStatus status = Status();
  {
    std::ofstream out(directory + "/status.txt", std::ios::trunc);
    out << "# aftershock local cluster status at unix_ms " << UnixMs() << "\n" << status.DebugString();
    if (!out) throw ClusterError(grpc::StatusCode::INTERNAL, "cannot write " + directory + "/status.txt");
  }
  copied.push_back("status.txt");
  std::string list;
  for (const auto& c : copied) list += (list.empty() ? "" : ", ") + c;
  return Result(started, directory, "collected into " + directory + ": " + list);
}

v1::ActionResult LocalClusterImpl::RenewLease(milliseconds lease) {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> lock(mu_);
  if (lease.count() > 0) lease_ = lease;
  lease_expires_ = Clock::now() + lease_;
  return Result(started, "lease", "lease renewed for " + Ms(lease_));
}

v1::ActionResult LocalClusterImpl::RenewFaultLease(const std::string& holder, milliseconds ttl) {
  const std::int64_t started = UnixMs();
  try {
    fault_lease_.Renew(holder, ttl);
  } catch (const std::invalid_argument& e) {
    throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, e.what());
  }
  return Result(started, holder, "fault lease of '" + holder + "' renewed for " + Ms(ttl));
}

v1::ActionResult LocalClusterImpl::ReleaseFaultLease(const std::string& holder) {
  const std::int64_t started = UnixMs();
  const bool held = fault_lease_.Release(holder);
  if (held) std::cerr << "[cluster] fault lease of '" << holder << "' released\n";
  fault_lease_cv_.notify_all();
  return Result(started, holder,
                held ? "fault lease of '" + holder + "' released" : "'" + holder + "' held no fault lease");
}

void LocalClusterImpl::Touch() {
  std::lock_guard<std::mutex> lock(mu_);
  lease_expires_ = Clock::now() + lease_;
}

bool LocalClusterImpl::LeaseExpired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lease_.count() > 0 && Clock::now() >= lease_expires_;
}

std::vector<std::pair<std::string, std::string>> LocalClusterImpl::Replicas() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const ReplicaSlot& slot : slots_) out.emplace_back(slot.name, slot.address());
  return out;
}

}  // namespace internal

std::unique_ptr<LocalCluster> LocalCluster::Start(LocalClusterOptions options) {
  auto impl = std::make_unique<internal::LocalClusterImpl>(std::move(options));
  try {
    impl->Start();
  } catch (const ClusterError&) {
    impl->Stop();
    throw;
  } catch (const std::exception& e) {
    impl->Stop();
    throw ClusterError(grpc::StatusCode::UNAVAILABLE, std::string("local cluster bring-up failed: ") + e.what());
  }
  return std::unique_ptr<LocalCluster>(new LocalCluster(std::move(impl)));
}

LocalCluster::LocalCluster(std::unique_ptr<internal::LocalClusterImpl> impl) : impl_(std::move(impl)) {}
LocalCluster::~LocalCluster() { Stop(); }

v1::ClusterStatus LocalCluster::Status() { return impl_->Status(); }
v1::ClusterStatus LocalCluster::WaitSteady(std::chrono::milliseconds timeout) { return impl_->WaitSteady(timeout); }
v1::ActionResult LocalCluster::KillReplica(const std::string& name) { return impl_->KillReplica(name); }
v1::ActionResult LocalCluster::KillDatabasePrimary() { return impl_->KillDatabasePrimary(); }
v1::ActionResult LocalCluster::SetDatabaseLinkFaults(const std::string& member, const ProxyFaults& faults) {
  return impl_->SetDatabaseLinkFaults(member, faults);
}
v1::ActionResult LocalCluster::ClearDatabaseLinkFaults() { return impl_->ClearDatabaseLinkFaults(); }
v1::ActionResult LocalCluster::SetReplicationLinkFaults(const std::string& member, const ProxyFaults& faults) {
  return impl_->SetReplicationLinkFaults(member, faults);
}
v1::ActionResult LocalCluster::ClearReplicationLinkFaults() { return impl_->ClearReplicationLinkFaults(); }
v1::ActionResult LocalCluster::SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes) {
  return impl_->SetReplicationMode(synchronous, maximum_lag_on_failover_bytes);
}
v1::ActionResult LocalCluster::RollingRestart(std::chrono::milliseconds grace, std::chrono::milliseconds min_ready,
                                              std::chrono::milliseconds timeout) {
  return impl_->RollingRestart(grace, min_ready, timeout);
}
v1::ActionResult LocalCluster::Drain(const std::string& node, std::chrono::milliseconds timeout,
                                     std::chrono::milliseconds grace) {
  return impl_->Drain(node, timeout, grace);
}
v1::ActionResult LocalCluster::Uncordon(const std::string& node) { return impl_->Uncordon(node); }
v1::ActionResult LocalCluster::SetReplicaDefects(const std::string& replica, const pseudonym::v1::Defects& defects) {
  return impl_->SetReplicaDefects(replica, defects);
}
v1::ActionResult LocalCluster::CollectArtifacts(const std::string& directory) {
  return impl_->CollectArtifacts(directory);
}
v1::ActionResult LocalCluster::RenewLease(std::chrono::milliseconds lease) { return impl_->RenewLease(lease); }
void LocalCluster::Touch() { impl_->Touch(); }
v1::ActionResult LocalCluster::RenewFaultLease(const std::string& holder, std::chrono::milliseconds ttl) {
  return impl_->RenewFaultLease(holder, ttl);
}
v1::ActionResult LocalCluster::ReleaseFaultLease(const std::string& holder) { return impl_->ReleaseFaultLease(holder); }
bool LocalCluster::LeaseExpired() const { return impl_->LeaseExpired(); }
std::vector<std::pair<std::string, std::string>> LocalCluster::Replicas() const { return impl_->Replicas(); }
std::vector<std::string> LocalCluster::ReplicaAddresses() const {
  std::vector<std::string> out;
  for (const auto& [name, address] : impl_->Replicas()) out.push_back(address);
  return out;
}
std::string LocalCluster::ConnectionString() const { return impl_->ConnectionString(); }
std::string LocalCluster::ReplicaStore() const { return impl_->ReplicaStore(); }
const std::string& LocalCluster::DataDir() const { return impl_->DataDir(); }
const std::string& LocalCluster::WorkDir() const { return impl_->WorkDir(); }
std::int64_t LocalCluster::StartedUnixMs() const { return impl_->StartedUnixMs(); }
void LocalCluster::Stop() { impl_->Stop(); }

pseudonym::v1::Defects DefectsFromRequest(const v1::ReplicaDefectsRequest& request) {
  pseudonym::v1::Defects defects;
  defects.set_non_idempotent(request.non_idempotent());
  defects.set_forget_fraction(request.forget_fraction());
  defects.set_stall_rate(request.stall_rate());
  defects.set_stall_ms(request.stall_ms());
  defects.set_stall_until_ms_from_now(request.stall_until_ms_from_now());
  defects.set_internal_rate(request.internal_rate());
  defects.set_unavailable_rate(request.unavailable_rate());
  defects.set_ack_before_commit(request.ack_before_commit());
  return defects;
}

ProxyFaults ProxyFaultsFromProto(const v1::LinkFaults& faults) {
  ProxyFaults out;
  out.latency = std::chrono::milliseconds(faults.latency_ms());
  out.jitter = std::chrono::milliseconds(faults.jitter_ms());
  out.blackhole = faults.blackhole();
  out.reset = faults.reset();
  out.bandwidth_bytes_per_second = faults.bandwidth_bytes_per_second();
  return out;
}

v1::LinkFaults ProxyFaultsToProto(const ProxyFaults& faults) {
  v1::LinkFaults out;
  out.set_latency_ms(static_cast<std::uint32_t>(faults.latency.count()));
  out.set_jitter_ms(static_cast<std::uint32_t>(faults.jitter.count()));
  out.set_blackhole(faults.blackhole);
  out.set_reset(faults.reset);
  out.set_bandwidth_bytes_per_second(faults.bandwidth_bytes_per_second);
  return out;
}

}  // namespace aftershock::cluster
