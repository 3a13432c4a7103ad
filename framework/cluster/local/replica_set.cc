#include "framework/cluster/local/replica_set.h"

#include <signal.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <random>
#include <stdexcept>

#include "framework/cluster/local/cluster_error.h"
#include "framework/cluster/local/internal/action_result.h"
#include "framework/cluster/local/internal/readiness_probe.h"
#include "framework/process/log_tail.h"

namespace aftershock::cluster {
namespace internal {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

struct ReplicaSlot {
  std::string name;
  std::string node;
  std::string zone;
  int port = 0;
  std::string log_path;
  std::optional<process::ChildProcess> child;
  bool ready = false;
  Clock::time_point ready_since{};
  int probe_failures = 0;
  std::uint32_t restarts = 0;
  bool cordoned = false;
  bool held = false;           // an action owns it (stopping it on purpose): do not restart
  bool start_now = false;      // start as soon as possible, without back-off
  bool crash_pending = false;  // exited on its own: restart after the back-off
  // SIGKILLed by KillReplica: this process is never ready again. A readiness probe that was answered
  // just before the kill, and is applied after it, must not mark the dying process ready.
  bool killed = false;
  Clock::time_point restart_due{};
  milliseconds backoff{0};
  std::optional<int> last_exit_code;
  // The defects the hook set on the current process ("" none); they may end by themselves at
  // defects_until.
  std::string defects;
  std::optional<Clock::time_point> defects_until;

  std::string address() const { return "127.0.0.1:" + std::to_string(port); }
  pid_t pid() const { return child ? child->pid() : 0; }
  bool DefectsInForce(Clock::time_point now) const {
    return child && !defects.empty() && (!defects_until || now < *defects_until);
  }
};

}  // namespace internal

namespace {

using internal::Clock;
using internal::ReplicaSlot;
using internal::Ms;
using internal::Result;
using internal::UnixMs;
using std::chrono::milliseconds;

constexpr milliseconds kProbeTimeout{400};
constexpr int kProbeFailuresToUnready = 2;
constexpr int kLogTailLines = 20;

std::string LogTail(const ReplicaSlot& slot) { return process::TailOfFile(slot.log_path, kLogTailLines); }

void BackOff(ReplicaSlot& slot, Clock::time_point now, const ReplicaSetOptions& options) {
  if (slot.backoff.count() == 0) slot.backoff = options.backoff_initial;
  slot.restart_due = now + slot.backoff;
  slot.backoff = std::min(slot.backoff * 2, options.backoff_max);
  slot.crash_pending = true;
}

}  // namespace

ReplicaSet::ReplicaSet(ReplicaSpec spec, ReplicaSetOptions options, std::function<void()> fault_applied,
                       std::function<void()> wake)
    : spec_(std::move(spec)),
      options_(options),
      fault_applied_(std::move(fault_applied)),
      wake_(std::move(wake)) {
  if (const std::string error = ValidateReplicaSpec(spec_); !error.empty()) {
    throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, error);
  }
}

ReplicaSet::~ReplicaSet() = default;

void ReplicaSet::Configure(int port_base, const std::string& conninfo, const std::string& work_dir) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    conninfo_ = conninfo;
    for (int i = 0; i < spec_.count; ++i) {
      ReplicaSlot slot;
      slot.name = ReplicaName(i);
      slot.node = "node-" + slot.name;
      slot.zone = "zone-" + slot.name;
      slot.port = port_base + i;
      slot.log_path = work_dir + "/replica-" + slot.name + ".log";
      slot.start_now = true;
      slots_.push_back(std::move(slot));
    }
    reconcile_ = true;
  }
  wake_();
}

void ReplicaSet::StartLocked(ReplicaSlot& slot) {
  process::ChildOptions child;
  child.program = spec_.binary;
  child.args = ExpandReplicaArgs(spec_.args, {.port = slot.port,
                                              .conninfo = conninfo_,
                                              .name = slot.name,
                                              .node = slot.node,
                                              .zone = slot.zone,
                                              .grace = spec_.grace});
  child.log_path = slot.log_path;
  child.die_with_parent = true;
  child.new_process_group = true;
  {
    std::ofstream log(slot.log_path, std::ios::app);
    log << "=== [supervisor] starting replica " << slot.name << " on " << slot.node << " at unix_ms " << UnixMs()
        << "\n";
  }
  slot.child.emplace(process::ChildProcess::Start(child));
  slot.ready = false;
  slot.killed = false;
  slot.probe_failures = 0;
  slot.defects.clear();  // a new process starts without defects
  slot.defects_until.reset();
}

void ReplicaSet::Tick() {
  Reconcile();
  ProbeReadiness();
}

void ReplicaSet::Reconcile() {
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
      BackOff(slot, now, options_);
      changed_.notify_all();
    }
    if (slot.ready && now - slot.ready_since >= options_.backoff_reset) slot.backoff = milliseconds(0);
    if (slot.child || slot.cordoned || slot.held) continue;
    if (!slot.start_now && !(slot.crash_pending && now >= slot.restart_due)) continue;
    try {
      StartLocked(slot);
      if (slot.crash_pending) ++slot.restarts;
      slot.crash_pending = false;
      slot.start_now = false;
    } catch (const std::exception& e) {
      std::cerr << "[cluster] starting replica " << slot.name << " failed: " << e.what() << "\n";
      slot.start_now = false;
      BackOff(slot, now, options_);
    }
    changed_.notify_all();
  }
}

void ReplicaSet::ProbeReadiness() {
  std::vector<std::pair<int, pid_t>> targets;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!reconcile_ || stopping_) return;
    for (const ReplicaSlot& slot : slots_) {
      if (slot.child) targets.emplace_back(slot.port, slot.child->pid());
    }
  }
  // A fresh probe per process, so a restarted replica is not hidden behind reconnect back-off.
  for (auto it = probes_.begin(); it != probes_.end();) {
    const bool live = std::any_of(targets.begin(), targets.end(), [&](const auto& t) { return t.second == it->first; });
    it = live ? std::next(it) : probes_.erase(it);
  }
  std::vector<std::pair<pid_t, internal::ProbeResult>> results;
  for (const auto& [port, pid] : targets) {
    auto& probe = probes_[pid];
    if (!probe) probe = std::make_unique<internal::ReadinessCheck>(port, spec_.probe);
    results.emplace_back(pid, probe->Check(kProbeTimeout));
  }
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = Clock::now();
  for (const auto& [pid, result] : results) {
    for (ReplicaSlot& slot : slots_) {
      if (!slot.child || slot.child->pid() != pid || slot.killed) continue;
      const bool was_ready = slot.ready;
      if (result == internal::ProbeResult::kServing) {
        slot.probe_failures = 0;
        if (!slot.ready) slot.ready_since = now;
        slot.ready = true;
      } else if (result == internal::ProbeResult::kNotServing) {
        slot.ready = false;  // draining: out of rotation at once
      } else if (++slot.probe_failures >= kProbeFailuresToUnready) {
        slot.ready = false;
      }
      if (was_ready != slot.ready) changed_.notify_all();
    }
  }
}

bool ReplicaSet::WaitFor(std::unique_lock<std::mutex>& lock, Clock::time_point deadline,
                         const std::function<bool()>& pred) {
  while (!pred()) {
    if (stopping_) throw ClusterError(grpc::StatusCode::UNAVAILABLE, "the local cluster is stopping");
    if (Clock::now() >= deadline) return false;
    changed_.wait_until(lock, std::min(deadline, Clock::now() + milliseconds(200)));
  }
  return true;
}

void ReplicaSet::WaitAllReady(milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  const bool ready = WaitFor(lock, Clock::now() + timeout, [&] {
    return std::all_of(slots_.begin(), slots_.end(), [](const ReplicaSlot& s) { return s.ready; });
  });
  if (ready) return;
  std::string what;
  for (const ReplicaSlot& slot : slots_) {
    if (slot.ready) continue;
    what += "replica " + slot.name + " (" + slot.address() + ", " +
            (slot.child ? "pid " + std::to_string(slot.child->pid()) + " running"
                        : "not running, last exit " + std::to_string(slot.last_exit_code.value_or(-1))) +
            ") was not ready within " + Ms(timeout) + "; log " + slot.log_path + ":\n" + LogTail(slot);
  }
  throw ClusterError(grpc::StatusCode::DEADLINE_EXCEEDED, what);
}

std::string ReplicaSet::Names(const char* prefix) const {
  std::string out;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    out += (i == 0 ? "" : (i + 1 == slots_.size() ? " or " : ", ")) + std::string(prefix) + slots_[i].name;
  }
  return out.empty() ? "none" : out;
}

ReplicaSlot& ReplicaSet::SlotByName(const std::string& name) {
  for (ReplicaSlot& slot : slots_) {
    if (slot.name == name) return slot;
  }
  throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, "no replica named '" + name + "' (" + Names("") + ")");
}

ReplicaSlot& ReplicaSet::SlotByNode(const std::string& node) {
  for (ReplicaSlot& slot : slots_) {
    if (slot.node == node) return slot;
  }
  throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, "no node named '" + node + "' (" + Names("node-") + ")");
}

std::string ReplicaSet::OthersNotReadyLocked(const std::string& except) const {
  std::string out;
  for (const ReplicaSlot& slot : slots_) {
    if (slot.name == except || slot.ready) continue;
    out += (out.empty() ? "" : ", ") + std::string("replica ") + slot.name +
           (slot.cordoned ? " (node " + slot.node + " cordoned)" : "");
  }
  return out;
}

std::optional<int> ReplicaSet::EvictLocked(std::unique_lock<std::mutex>& lock, ReplicaSlot& slot, milliseconds grace) {
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

v1::ActionResult ReplicaSet::KillReplica(const std::string& name) {
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
  target->killed = true;
  changed_.notify_all();
  return Result(started, target->name, "killed replica " + target->name + " (pid " + std::to_string(pid) + ")");
}

v1::ActionResult ReplicaSet::RollingRestart(milliseconds grace, milliseconds min_ready, milliseconds timeout) {
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
    wake_();
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

v1::ActionResult ReplicaSet::Drain(const std::string& node, milliseconds timeout, milliseconds grace) {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> action(action_mu_);
  const auto deadline = Clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mu_);
  ReplicaSlot& slot = SlotByNode(node);
  fault_applied_();
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

v1::ActionResult ReplicaSet::Uncordon(const std::string& node) {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> action(action_mu_);
  std::unique_lock<std::mutex> lock(mu_);
  ReplicaSlot& slot = SlotByNode(node);
  const bool was_cordoned = slot.cordoned;
  slot.cordoned = false;
  if (!slot.child) slot.start_now = true;
  changed_.notify_all();
  wake_();
  const auto deadline = Clock::now() + options_.ready_timeout;
  if (!WaitFor(lock, deadline, [&] { return slot.child && slot.ready; })) {
    throw ClusterError(grpc::StatusCode::DEADLINE_EXCEEDED,
                       "uncordoned " + node + " but replica " + slot.name + " was not ready within " +
                           Ms(options_.ready_timeout) + "; log " + slot.log_path + ":\n" + LogTail(slot));
  }
  return Result(started, node,
                std::string(was_cordoned ? "uncordoned " : "node was not cordoned: ") + node + "; replica " +
                    slot.name + " ready (pid " + std::to_string(slot.pid()) + ")");
}

v1::ActionResult ReplicaSet::SetDefects(const std::string& replica, const std::map<std::string, std::string>& defects) {
  const std::int64_t started = UnixMs();
  if (!spec_.defects) {
    throw ClusterError(grpc::StatusCode::UNIMPLEMENTED, "this cluster's replica spec has no defects hook");
  }
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
  if (!defects.empty()) fault_applied_();
  std::string names, text;
  for (const auto& [name, address] : targets) {
    AppliedDefects applied;
    try {
      applied = spec_.defects(address, defects);
    } catch (const std::invalid_argument& e) {
      throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, "replica " + name + ": " + e.what());
    } catch (const std::exception& e) {
      throw ClusterError(grpc::StatusCode::UNAVAILABLE, "replica " + name + ": " + e.what());
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (ReplicaSlot& slot : slots_) {
        if (slot.name != name || !slot.child || slot.address() != address) continue;
        slot.defects = applied.text;
        slot.defects_until.reset();
        if (applied.ends_after) slot.defects_until = Clock::now() + *applied.ends_after;
      }
    }
    text = applied.text;
    names += (names.empty() ? "" : ",") + name;
  }
  return Result(started, names, "defects set on replica(s) " + names + ": " + (text.empty() ? "none" : text));
}

void ReplicaSet::FillStatus(v1::ClusterStatus& status, std::string& reasons) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = Clock::now();
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
    if (slot.DefectsInForce(now)) out->set_defects(slot.defects);
    if (!slot.ready && !slot.cordoned) {
      reasons += (reasons.empty() ? "" : "; ") + std::string("replica ") + slot.name + " not ready" +
                 (slot.child ? "" : " (not running)");
    }
  }
  if (slots_.empty()) reasons += (reasons.empty() ? "" : "; ") + std::string("replicas: not started");
  status.set_replica_store(spec_.store);
}

std::vector<std::pair<std::string, std::string>> ReplicaSet::DefectsInForce() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, std::string>> out;
  const auto now = Clock::now();
  for (const ReplicaSlot& slot : slots_) {
    if (slot.DefectsInForce(now)) out.emplace_back(slot.name, slot.defects);
  }
  return out;
}

std::vector<std::string> ReplicaSet::CordonedNodes() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const ReplicaSlot& slot : slots_) {
    if (slot.cordoned) out.push_back(slot.node);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> ReplicaSet::Logs() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const ReplicaSlot& slot : slots_) out.emplace_back(slot.log_path, "replica-" + slot.name + ".log");
  return out;
}

std::vector<std::pair<std::string, std::string>> ReplicaSet::Replicas() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const ReplicaSlot& slot : slots_) out.emplace_back(slot.name, slot.address());
  return out;
}

void ReplicaSet::StopAll(milliseconds grace) {
  std::vector<process::ChildProcess> replicas;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    reconcile_ = false;
    for (ReplicaSlot& slot : slots_) {
      if (slot.child) replicas.push_back(std::move(*slot.child));
      slot.child.reset();
      slot.ready = false;
    }
  }
  changed_.notify_all();
  for (auto& child : replicas) child.Signal(SIGTERM);
  for (auto& child : replicas) child.Stop(grace);
}

}  // namespace aftershock::cluster
