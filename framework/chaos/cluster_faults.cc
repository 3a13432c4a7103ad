#include "framework/chaos/cluster_faults.h"

#include <algorithm>
#include <optional>

#include "framework/chaos/postgres_probe.h"
#include "framework/common/duration_text.h"

namespace aftershock::chaos {
namespace {

using std::chrono::milliseconds;

const ReplicaState* FindReplica(const ClusterState& s, const std::string& name) {
  for (const auto& r : s.replicas) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

// Polls a probe of every member's port until `done(round)`; the detail names what each member saw.
Confirmation ConfirmByProbe(ClusterDriver& driver, Clock::time_point deadline,
                            const std::function<int(const DatabaseMemberState&)>& port_of, milliseconds timeout,
                            bool running_only, const std::function<bool(const ProbeRound&)>& done,
                            const std::string& confirmed, const std::string& not_confirmed) {
  std::string last;
  const Confirmation c = PollUntil(
      deadline,
      [&]() -> std::optional<std::string> {
        const ProbeRound round = ProbeMembers(driver.Observe(), port_of, timeout, running_only);
        last = round.text;
        if (!done(round)) return std::nullopt;
        return confirmed + ": " + round.text;
      },
      not_confirmed);
  if (c.status == Confirmation::Status::kConfirmed) return c;
  return Confirmation::NotConfirmed(c.detail + (last.empty() ? "" : ": " + last));
}

}  // namespace

std::string ClusterActionFault::detail() const {
  std::lock_guard<std::mutex> lock(mu_);
  return detail_;
}

void ClusterActionFault::SetDetail(const std::string& detail) {
  std::lock_guard<std::mutex> lock(mu_);
  detail_ = detail;
}

void ReplicaKillFault::Apply() {
  replica_.clear();
  instance_.clear();
  const ActionOutcome result = driver_.KillReplica("");
  SetDetail(result.summary);
  replica_ = result.target;
  instance_ = result.instance;
}

Confirmation ReplicaKillFault::ConfirmApplied(Clock::time_point deadline) {
  if (replica_.empty() || instance_.empty()) {
    return Confirmation::NotConfirmed("the driver did not name the replica and instance it killed: '" + detail() + "'");
  }
  return PollUntil(
      deadline,
      [&]() -> std::optional<std::string> {
        if (driver_.InstanceRunning(instance_)) return std::nullopt;
        const ClusterState s = driver_.Observe();
        const ReplicaState* r = FindReplica(s, replica_);
        const std::string gone = "replica " + replica_ + ": " + instance_ + " gone, ";
        if (r == nullptr) return gone + "no longer among the replicas";
        if (!r->instance.empty() && r->instance != instance_) return gone + "restarted as " + r->instance;
        if (!r->ready) return gone + "out of the ready endpoints";
        return std::nullopt;
      },
      "replica " + replica_ + " (" + instance_ + ") still running or still ready");
}

void PrimaryKillFault::Apply() {
  killed_.clear();
  const ActionOutcome result = driver_.KillDatabasePrimary();
  SetDetail(result.summary);
  killed_ = result.target;
}

Confirmation PrimaryKillFault::ConfirmApplied(Clock::time_point deadline) {
  if (killed_.empty()) return Confirmation::NotConfirmed("the supervisor did not name the primary it killed");
  return PollUntil(
      deadline,
      [&]() -> std::optional<std::string> {
        const ClusterState s = driver_.Observe();
        if (s.primary.empty() || s.primary == killed_) return std::nullopt;
        return "leader " + s.primary + " (was " + killed_ + ")";
      },
      "no other member took over from " + killed_, milliseconds(200));
}

void DbPartitionFault::Apply() {
  LinkFault fault;
  fault.blackhole = true;
  SetDetail(driver_.SetDatabaseLinkFaults("", fault).summary);
}

void DbPartitionFault::Revert() { driver_.ClearDatabaseLinkFaults(); }

Confirmation DbPartitionFault::ConfirmApplied(Clock::time_point deadline) {
  return ConfirmByProbe(
      driver_, deadline, ServicePort, milliseconds(1000), false,
      [](const ProbeRound& r) { return r.probed > 0 && r.hung == r.probed; },
      "probe through every service -> database link hangs", "a probe through the service -> database links did not hang");
}

Confirmation DbPartitionFault::ConfirmReverted(Clock::time_point deadline) {
  return ConfirmByProbe(
      driver_, deadline, ServicePort, milliseconds(1000), false,
      [](const ProbeRound& r) { return r.probed > 0 && r.hung == 0 && r.answered > 0; },
      "probe through the service -> database links answered", "a probe through the service -> database links still hangs");
}

void RollingRestartFault::Apply() {
  before_.clear();
  const ClusterState status = driver_.Observe();
  for (const auto& r : status.replicas) {
    if (!r.instance.empty() && !r.node_cordoned) before_.emplace_back(r.name, r.instance);
  }
  SetDetail(driver_.RollingRestart(grace_, min_ready_).summary);
}

Confirmation RollingRestartFault::ConfirmApplied(Clock::time_point deadline) {
  if (before_.empty()) return Confirmation::NotConfirmed("no replica was running before the restart");
  std::string last;
  const Confirmation c = PollUntil(
      deadline,
      [&]() -> std::optional<std::string> {
        const ClusterState s = driver_.Observe();
        std::string text;
        bool all = true;
        for (const auto& [name, instance] : before_) {
          const bool running = driver_.InstanceRunning(instance);
          all = all && !running;
          text += (text.empty() ? "" : ", ") + name + " " + instance + (running ? " running" : " gone");
        }
        // The new instances: under the same names on the local cluster, under new pod names on
        // Kubernetes. As many as ran before.
        std::size_t renewed = 0;
        std::string now;
        for (const ReplicaState& r : s.replicas) {
          if (r.instance.empty()) continue;
          const bool old = std::any_of(before_.begin(), before_.end(), [&](const auto& b) { return b.second == r.instance; });
          if (old) continue;
          ++renewed;
          now += (now.empty() ? "" : ", ") + r.name + " " + r.instance;
        }
        all = all && renewed >= before_.size();
        text += "; now " + (now.empty() ? std::string("none new") : now);
        last = text;
        if (!all) return std::nullopt;
        return "every replica restarted: " + text;
      },
      "not every replica restarted");
  if (c.status == Confirmation::Status::kConfirmed) return c;
  return Confirmation::NotConfirmed(c.detail + (last.empty() ? "" : ": " + last));
}

namespace {

bool Cordoned(const ClusterState& s, const std::string& node) {
  return std::find(s.cordoned_nodes.begin(), s.cordoned_nodes.end(), node) != s.cordoned_nodes.end();
}

std::size_t ReadyReplicas(const ClusterState& s) {
  return static_cast<std::size_t>(
      std::count_if(s.replicas.begin(), s.replicas.end(), [](const ReplicaState& r) { return !r.instance.empty() && r.ready; }));
}

}  // namespace

void DrainFault::Apply() {
  ready_before_ = ReadyReplicas(driver_.Observe());
  SetDetail("drain " + node_);
  SetDetail(driver_.Drain(node_, timeout_).summary);
}

void DrainFault::Revert() { driver_.Uncordon(node_); }

Confirmation DrainFault::ConfirmApplied(Clock::time_point deadline) {
  return PollUntil(
      deadline,
      [&]() -> std::optional<std::string> {
        const ClusterState s = driver_.Observe();
        if (!Cordoned(s, node_)) return std::nullopt;
        std::string evicted;
        for (const ReplicaState& r : s.replicas) {
          if (r.node != node_) continue;
          if (!r.instance.empty() && r.ready) return std::nullopt;  // still serving there
          evicted += (evicted.empty() ? "" : ", ") + r.name + " " +
                     (r.instance.empty() ? std::string("not running") : r.instance + " not ready");
        }
        return node_ + " cordoned; " + (evicted.empty() ? "no replica left on it" : "replica " + evicted);
      },
      node_ + " not cordoned with its replica evicted");
}

Confirmation DrainFault::ConfirmReverted(Clock::time_point deadline) {
  return PollUntil(
      deadline,
      [&]() -> std::optional<std::string> {
        const ClusterState s = driver_.Observe();
        const std::size_t ready = ReadyReplicas(s);
        if (Cordoned(s, node_) || ready < ready_before_) return std::nullopt;
        return node_ + " schedulable; " + std::to_string(ready) + " replicas ready (" + std::to_string(ready_before_) +
               " before the drain)";
      },
      node_ + " still cordoned or fewer replicas ready than before the drain");
}

void AsyncReplicationFault::Apply() {
  SetDetail(driver_.SetReplicationMode(false, maximum_lag_on_failover_bytes_).summary);
}

void AsyncReplicationFault::Revert() {
  driver_.ClearReplicationLinkFaults();
  driver_.SetReplicationMode(true, 0);
}

namespace {
// "pg-a leader, pg-b sync_standby, pg-c replica"; counts sync standbys.
std::string Roles(const ClusterState& s, int* sync_standbys) {
  std::string roles;
  *sync_standbys = 0;
  for (const auto& m : s.members) {
    *sync_standbys += m.role == "sync_standby" ? 1 : 0;
    roles += (roles.empty() ? "" : ", ") + m.name + " " + (m.role.empty() ? std::string("-") : m.role);
  }
  return roles;
}
}  // namespace

Confirmation AsyncReplicationFault::ConfirmApplied(Clock::time_point deadline) {
  return PollUntil(
      deadline,
      [&]() -> std::optional<std::string> {
        const ClusterState s = driver_.Observe();
        int sync = 0;
        const std::string roles = Roles(s, &sync);
        if (s.replication != "asynchronous" || sync != 0) return std::nullopt;
        return "asynchronous replication, no sync_standby (" + roles + ")";
      },
      "Patroni did not report asynchronous replication without a sync_standby");
}

Confirmation AsyncReplicationFault::ConfirmReverted(Clock::time_point deadline) {
  return PollUntil(
      deadline,
      [&]() -> std::optional<std::string> {
        const ClusterState s = driver_.Observe();
        int sync = 0;
        const std::string roles = Roles(s, &sync);
        if (s.replication != "synchronous" || sync == 0) return std::nullopt;
        return "synchronous replication with a sync_standby (" + roles + ")";
      },
      "Patroni did not report synchronous replication with a sync_standby");
}

void ReplicationLagFault::Apply() {
  LinkFault fault;
  fault.latency = latency_;
  SetDetail(driver_.SetReplicationLinkFaults("", fault).summary);
}

void ReplicationLagFault::Revert() { driver_.ClearReplicationLinkFaults(); }

// A probe that gets no answer for most of the latency (at most 2 s: the verdict set's lag is 20 s)
// shows the delay; a member that is down closes instead.
Confirmation ReplicationLagFault::ConfirmApplied(Clock::time_point deadline) {
  return ConfirmByProbe(
      driver_, deadline, ReplicationPort, std::min<milliseconds>(latency_ * 8 / 10, milliseconds(2000)), true,
      [](const ProbeRound& r) { return r.probed > 0 && r.hung == r.probed; },
      "probe through every replication link delayed",
      "a probe through the replication links was not delayed by about " + MsText(latency_));
}

Confirmation ReplicationLagFault::ConfirmReverted(Clock::time_point deadline) {
  return ConfirmByProbe(
      driver_, deadline, ReplicationPort,
      std::max<milliseconds>(std::min<milliseconds>(latency_ / 2, milliseconds(1000)), milliseconds(100)), true,
      [](const ProbeRound& r) { return r.probed > 0 && r.answered == r.probed; },
      "probe through every replication link answered promptly", "a probe through the replication links is still delayed");
}

void ReplicaDefectsFault::Apply() {
  std::string text;
  for (const auto& [key, value] : defects_) text += (text.empty() ? "" : " ") + key + "=" + value;
  SetDetail((replica_.empty() ? std::string("all replicas") : "replica " + replica_) + ": " + text);
  driver_.SetReplicaDefects(replica_, defects_);
}

void ReplicaDefectsFault::Revert() { driver_.SetReplicaDefects("", {}); }

std::vector<ReplicaState> ReplicaDefectsFault::Running(const std::string& replica) {
  std::vector<ReplicaState> out;
  for (const ReplicaState& r : driver_.Observe().replicas) {
    if (!replica.empty() && r.name != replica) continue;
    if (r.instance.empty()) continue;  // a drained replica gets none
    out.push_back(r);
  }
  return out;
}

Confirmation ReplicaDefectsFault::ConfirmApplied(Clock::time_point deadline) {
  const std::vector<ReplicaState> running = Running(replica_);
  if (running.empty()) return Confirmation::NotConfirmed("no running replica to ask");
  if (confirm_) return confirm_(running, defects_, deadline);
  return PollUntil(
      deadline,
      [&]() -> std::optional<std::string> {
        const std::vector<ReplicaState> now = Running(replica_);
        const bool all = !now.empty() && std::all_of(now.begin(), now.end(), [](const ReplicaState& r) {
          return !r.defects.empty();
        });
        if (!all) return std::nullopt;
        return "every running replica has defects in force (" + std::to_string(now.size()) + ")";
      },
      "not every running replica reports the defects in force");
}

Confirmation ReplicaDefectsFault::ConfirmReverted(Clock::time_point deadline) {
  const std::vector<ReplicaState> running = Running("");
  if (running.empty()) return Confirmation::NotConfirmed("no running replica to ask");
  if (confirm_) return confirm_(running, {}, deadline);
  return PollUntil(
      deadline,
      [&]() -> std::optional<std::string> {
        const std::vector<ReplicaState> now = Running("");
        const bool none = std::none_of(now.begin(), now.end(), [](const ReplicaState& r) { return !r.defects.empty(); });
        if (!none) return std::nullopt;
        return "no running replica has defects in force (" + std::to_string(now.size()) + ")";
      },
      "a running replica still has defects in force");
}

std::function<void()> WaitSteadyGate(ClusterDriver& driver, std::chrono::milliseconds timeout) {
  return [&driver, timeout] { driver.WaitSteady(timeout); };
}

}  // namespace aftershock::chaos
