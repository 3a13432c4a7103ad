// LocalCluster: every process of the embedded default on loopback, owned by one object - the
// database (etcd + Patroni + 3 PostgreSQL 15, strict synchronous replication, fault proxies on its
// links: Database), N replicas of the target's ReplicaSpec on synthetic nodes node-a.. / zones
// zone-a.., restarted like a kubelet would (ReplicaSet), the fault lease that reverts every fault
// once nobody renews it, and the janitor. A thin composition of those parts; the aftershock-cluster
// supervisor serves its methods over gRPC (ClusterControlService); tests may use it in-process.
//
//   LocalClusterOptions options;                        // defaults: ports picked free, temp dirs
//   options.replicas = pseudonym::PseudonymReplicaSpec({});   // the target says what to run
//   auto cluster = LocalCluster::Start(options);        // returns at steady state or throws
//   cluster->KillReplica("b");                          // SIGKILL; restarted after a back-off
//   cluster->WaitSteady(std::chrono::seconds(30));
//   cluster->Drain("node-c", std::chrono::seconds(60), std::chrono::seconds(10));
//   cluster->Uncordon("node-c");
//   cluster->Stop();                                    // or let the destructor do it
//
// Every wait is bounded; failures throw ClusterError with the gRPC code the control API returns.
// Every child is forked by one long-lived owner thread (internal/owner_thread.h).
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_LOCAL_CLUSTER_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_LOCAL_CLUSTER_H_

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "framework/cluster/control/cluster_control.pb.h"
#include "framework/cluster/fault_proxy/fault_proxy.h"
#include "framework/cluster/local/cluster_error.h"
#include "framework/cluster/local/proto_conversion.h"
#include "framework/cluster/local/replica_spec.h"
#include "framework/cluster/patroni_cluster.h"

namespace aftershock::cluster {

namespace internal {
class LocalClusterImpl;
}  // namespace internal

struct LocalClusterOptions {
  PatroniClusterOptions database;
  // What the replicas are (binary, arguments, probe, count, grace, defects hook): the target's.
  ReplicaSpec replicas;
  // Scratch directory (replica logs); empty: a fresh /tmp/aftershock-cluster-XXXXXX. Removed by Stop().
  std::string work_dir;
  std::chrono::milliseconds replica_ready_timeout{30000};
  // A fault proxy in front of each member on the replication path (no faults unless a test sets
  // them: SetReplicationLinkFaults). Fixes database.pg_port_base when it is 0.
  bool replication_through_proxy = true;
  // Kubelet-like restart back-off of a crashed replica: initial, doubling up to max; reset after the
  // replica has been ready for backoff_reset.
  std::chrono::milliseconds restart_backoff_initial{500};
  std::chrono::milliseconds restart_backoff_max{5000};
  std::chrono::milliseconds restart_backoff_reset{10000};
  // How long a killed primary stays down at least before its Patroni is started again; it also
  // waits (up to 30 s) until another member leads, so the kill is a real failover.
  std::chrono::milliseconds member_rejoin_delay{2000};
  // Idle lease: renewed by RenewLease and Touch(); the owner of the LocalCluster acts on LeaseExpired().
  std::chrono::milliseconds lease{std::chrono::minutes(30)};
  // Fault lease (separate from the idle lease): once no holder renews it, every fault in force is
  // reverted. A fault applied while no fault lease is held is held for `unheld_fault_hold`; expiry
  // is checked every `fault_lease_check` (a mutex and a map lookup; the revert runs on its own thread).
  std::chrono::milliseconds unheld_fault_hold{std::chrono::minutes(2)};
  std::chrono::milliseconds fault_lease_check{250};
  // The supervisor's own log, copied by CollectArtifacts when set.
  std::string supervisor_log_path;
  // A detached shell janitor (internal/janitor.h), started before any other process: if this
  // process dies without Stop() (SIGKILL at any moment, bring-up included), it kills what the
  // cluster started - the postmasters left behind (Patroni starts them detached, so die_with_parent
  // cannot reach them) and the orphans of its process groups - and removes the temporary folders
  // and whatever RemoveAfterCrash() recorded, each only while its path still names the inode it
  // was created with. Its log: `janitor_log_path` (empty: this process's stderr).
  bool janitor = true;
  std::string janitor_log_path;
};

class LocalCluster {
 public:
  // Brings everything up and waits for steady state; throws ClusterError naming what never got
  // ready (everything started is stopped first).
  static std::unique_ptr<LocalCluster> Start(LocalClusterOptions options);

  LocalCluster(const LocalCluster&) = delete;
  LocalCluster& operator=(const LocalCluster&) = delete;
  ~LocalCluster();

  v1::ClusterStatus Status();
  // DEADLINE_EXCEEDED naming what is not ready.
  v1::ClusterStatus WaitSteady(std::chrono::milliseconds timeout);
  // Empty name: a random ready replica. FAILED_PRECONDITION when it is not running.
  v1::ActionResult KillReplica(const std::string& name);
  // FAILED_PRECONDITION unless the database is healthy (or a killed member has not rejoined yet);
  // the killed member is restarted asynchronously once another member leads, after at least
  // member_rejoin_delay (the call returns right after the kill).
  v1::ActionResult KillDatabasePrimary();
  // member "" = every link; "pg-a" or "a" = that member's. INVALID_ARGUMENT for an unknown one.
  v1::ActionResult SetDatabaseLinkFaults(const std::string& member, const ProxyFaults& faults);
  v1::ActionResult ClearDatabaseLinkFaults();
  // The same on the replication path (a member's replication proxy: the links its standbys stream
  // through while it leads). FAILED_PRECONDITION when started without replication proxies.
  v1::ActionResult SetReplicationLinkFaults(const std::string& member, const ProxyFaults& faults);
  v1::ActionResult ClearReplicationLinkFaults();
  // Patroni's replication mode at run time; waits (60 s) until the leader applied it.
  // maximum_lag_on_failover_bytes 0 = Patroni's default (1 MiB). Healthy/steady follow the mode.
  v1::ActionResult SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes);
  v1::ActionResult RollingRestart(std::chrono::milliseconds grace, std::chrono::milliseconds min_ready,
                                  std::chrono::milliseconds timeout);
  // Cordons `node` and evicts its replica once every other replica is ready (at most one
  // unavailable); DEADLINE_EXCEEDED after `timeout` (the node stays cordoned).
  v1::ActionResult Drain(const std::string& node, std::chrono::milliseconds timeout, std::chrono::milliseconds grace);
  // Uncordons `node` and waits (replica_ready_timeout) until its replica is ready again.
  v1::ActionResult Uncordon(const std::string& node);
  // replica "" = all; the spec's defects hook interprets `defects` (empty = none). UNAVAILABLE when
  // a target replica is not running, INVALID_ARGUMENT for defects the hook does not know,
  // UNIMPLEMENTED when the spec has no hook.
  v1::ActionResult SetReplicaDefects(const std::string& replica, const std::map<std::string, std::string>& defects);
  // Database logs into DIR/database/, replica logs as DIR/replica-X.log, the supervisor log, and
  // DIR/status.txt (the Status() snapshot). DIR must be absolute; nothing is written outside it (a
  // name with `..` or an absolute one is refused), and no file or folder in it is written through
  // a symlink (INVALID_ARGUMENT naming it).
  v1::ActionResult CollectArtifacts(const std::string& directory);
  // lease 0 = keep the current lease length; renews it from now.
  v1::ActionResult RenewLease(std::chrono::milliseconds lease);
  // Renews the lease (any RPC counts as activity).
  void Touch();
  // The fault lease of `holder` (INVALID_ARGUMENT for an empty name or ttl 0), and its release.
  // When no holder is live any more, a background thread reverts every fault in force (link and
  // replication-link faults cleared, defects cleared, strict synchronous replication, every node
  // uncordoned), logs it, and reports it in Status().last_fault_lease_expiry.
  // `artifacts_dir` (optional, absolute): the holder's artifacts folder. When its lease expires
  // without a release (the holder was killed) and when the cluster stops while it is held, the
  // cluster's logs are collected there (CollectArtifacts), so a killed run keeps its evidence.
  v1::ActionResult RenewFaultLease(const std::string& holder, std::chrono::milliseconds ttl,
                                   const std::string& artifacts_dir = "");
  v1::ActionResult ReleaseFaultLease(const std::string& holder);
  bool LeaseExpired() const;
  // Records a file or folder the caller created (e.g. the supervisor's state file and socket) with
  // the janitor: removed after a crash while the path still names the same inode. No-op without a
  // janitor; throws std::runtime_error when it cannot be recorded.
  void RemoveAfterCrash(const std::string& path);

  // (name, "127.0.0.1:PORT") of a, b, c, ...; stable across restarts.
  std::vector<std::pair<std::string, std::string>> Replicas() const;
  std::vector<std::string> ReplicaAddresses() const;
  // The libpq conninfo the replicas use (through the proxies, follows the primary).
  std::string ConnectionString() const;
  // The replicas' store as the spec names it (e.g. "postgres" or "memory").
  std::string ReplicaStore() const;
  const std::string& DataDir() const;
  const std::string& WorkDir() const;
  std::int64_t StartedUnixMs() const;

  // Stops every replica (SIGTERM, grace), the proxies, the database (and any postmaster left
  // behind), then removes the temporary data. Idempotent.
  void Stop();

 private:
  explicit LocalCluster(std::unique_ptr<internal::LocalClusterImpl> impl);

  std::unique_ptr<internal::LocalClusterImpl> impl_;
};

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_LOCAL_CLUSTER_H_
