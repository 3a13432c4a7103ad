// ReplicaSet: the replicas of the local cluster, supervised as a kubelet would - N processes of
// the target's ReplicaSpec on synthetic nodes node-a.. and zones zone-a.., each on a port stable
// across restarts, restarted with a back-off after a crash, probed for readiness, and the
// disruptive actions on them (kill, rolling restart, drain with a budget of one unavailable
// replica, uncordon, seeded defects through the spec's hook).
//
//   ReplicaSet replicas(spec, options, [&] { lease.FaultApplied(hold); }, [&] { owner.Wake(); });
//   replicas.Configure(port_base, conninfo, work_dir);  // slots a..; they start at the next Tick
//   owner: replicas.Tick();                             // reconcile + probe, on the forking thread
//   replicas.WaitAllReady(std::chrono::seconds(30));
//   replicas.KillReplica("b");
//   replicas.StopAll(grace);
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_REPLICA_SET_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_REPLICA_SET_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/cluster/control/cluster_control.pb.h"
#include "framework/cluster/local/replica_spec.h"
#include "framework/process/child_process.h"

namespace aftershock::cluster {

namespace internal {
class ReadinessCheck;
struct ReplicaSlot;
}  // namespace internal

struct ReplicaSetOptions {
  std::chrono::milliseconds ready_timeout{30000};
  // Kubelet-like restart back-off: initial, doubling up to max; reset after ready for `reset`.
  std::chrono::milliseconds backoff_initial{500};
  std::chrono::milliseconds backoff_max{5000};
  std::chrono::milliseconds backoff_reset{10000};
};

class ReplicaSet {
 public:
  // `fault_applied` is called before a fault (cordon, defects) is put in force; `wake` asks the
  // owner thread for a tick now.
  ReplicaSet(ReplicaSpec spec, ReplicaSetOptions options, std::function<void()> fault_applied,
             std::function<void()> wake);
  ~ReplicaSet();
  ReplicaSet(const ReplicaSet&) = delete;
  ReplicaSet& operator=(const ReplicaSet&) = delete;

  // spec.count slots on ports port_base.., logs in work_dir/replica-X.log; they start at the next Tick().
  void Configure(int port_base, const std::string& conninfo, const std::string& work_dir);
  // Owner thread only: restart what exited, start what is due, probe readiness.
  void Tick();
  // DEADLINE_EXCEEDED naming every replica not ready, with its log tail.
  void WaitAllReady(std::chrono::milliseconds timeout);

  v1::ActionResult KillReplica(const std::string& name);
  v1::ActionResult RollingRestart(std::chrono::milliseconds grace, std::chrono::milliseconds min_ready,
                                  std::chrono::milliseconds timeout);
  v1::ActionResult Drain(const std::string& node, std::chrono::milliseconds timeout, std::chrono::milliseconds grace);
  v1::ActionResult Uncordon(const std::string& node);
  v1::ActionResult SetDefects(const std::string& replica, const std::map<std::string, std::string>& defects);

  // Adds every replica to `status`; appends why one is not steady to `reasons` ("; "-separated).
  void FillStatus(v1::ClusterStatus& status, std::string& reasons) const;
  // (replica name, defects text) in force, and the cordoned nodes: what the fault lease reverts.
  std::vector<std::pair<std::string, std::string>> DefectsInForce() const;
  std::vector<std::string> CordonedNodes() const;
  // (log path, file name for the artifacts) of every replica.
  std::vector<std::pair<std::string, std::string>> Logs() const;
  // (name, "127.0.0.1:PORT"); stable across restarts.
  std::vector<std::pair<std::string, std::string>> Replicas() const;
  const ReplicaSpec& spec() const { return spec_; }

  // Stops supervising; SIGTERM to every replica, then each reaped within `grace`. Idempotent.
  void StopAll(std::chrono::milliseconds grace);

 private:
  void Reconcile();
  void ProbeReadiness();
  void StartLocked(internal::ReplicaSlot& slot);
  internal::ReplicaSlot& SlotByName(const std::string& name);
  internal::ReplicaSlot& SlotByNode(const std::string& node);
  std::string Names(const char* prefix) const;
  bool WaitFor(std::unique_lock<std::mutex>& lock, std::chrono::steady_clock::time_point deadline,
               const std::function<bool()>& pred);
  std::string OthersNotReadyLocked(const std::string& except) const;
  std::optional<int> EvictLocked(std::unique_lock<std::mutex>& lock, internal::ReplicaSlot& slot,
                                 std::chrono::milliseconds grace);

  ReplicaSpec spec_;
  ReplicaSetOptions options_;
  std::function<void()> fault_applied_;
  std::function<void()> wake_;
  std::string conninfo_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<internal::ReplicaSlot> slots_;
  bool reconcile_ = false;
  bool stopping_ = false;
  std::map<pid_t, std::unique_ptr<internal::ReadinessCheck>> probes_;  // owner thread only
  // Serializes the disruptive actions (rolling restart, drain, uncordon).
  std::mutex action_mu_;
};

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_REPLICA_SET_H_
