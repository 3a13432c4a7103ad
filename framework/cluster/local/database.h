// Database: the database half of the local cluster - PatroniCluster (etcd + Patroni + 3 PostgreSQL
// 15, strict synchronous replication), a fault proxy in front of each member on the service ->
// database path (the conninfo the replicas get goes through them), optionally one more on the
// replication path, and the rejoin of a killed primary once another member leads. Thread-safe.
//
//   Database db(options, [&] { lease.FaultApplied(hold); });
//   db.PrepareReplicationProxies();              // before the members start: fixes their ports
//   owner.Run([&] { db.StartMembers(); });       // forked by the owner thread
//   db.StartServiceProxies();
//   owner tick: db.Tick();                       // rejoins a killed primary when it is time
//   db.KillPrimary();  db.SetLinkFaults("", faults);  db.Stop();
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_DATABASE_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_DATABASE_H_

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/cluster/control/cluster_control.pb.h"
#include "framework/cluster/local/link_faults.h"
#include "framework/cluster/patroni_cluster.h"

namespace aftershock::cluster {

struct DatabaseOptions {
  PatroniClusterOptions patroni;
  // A fault proxy in front of each member on the replication path (Patroni's connect_address).
  bool replication_through_proxy = true;
  // How long a killed primary stays down at least before its Patroni is started again; it also
  // waits (up to 30 s) until another member leads, so the kill is a real failover.
  std::chrono::milliseconds member_rejoin_delay{2000};
};

class Database {
 public:
  Database(DatabaseOptions options, std::function<void()> fault_applied);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void PrepareReplicationProxies();
  // The (empty) data dir the members use, created by the caller; before StartMembers.
  void UseDataDir(const std::string& data_dir);
  // On the owner thread (every child is forked there).
  void StartMembers();
  void StartServiceProxies();
  // Owner thread: restarts a killed primary once another member leads (or after 30 s anyway).
  void Tick();

  // libpq conninfo through the service proxies (follows the primary).
  std::string ConnectionString() const;
  std::string DataDir() const;
  // Every port the database uses (PostgreSQL, Patroni REST, etcd).
  std::vector<int> UsedPorts() const;

  // Adds every member to `status` (and primary, replication); appends why the database is not
  // steady to `reasons`.
  void FillStatus(v1::ClusterStatus& status, std::string& reasons) const;
  // FAILED_PRECONDITION unless healthy (or a killed member has not rejoined yet).
  v1::ActionResult KillPrimary();
  v1::ActionResult SetLinkFaults(const std::string& member, const ProxyFaults& faults);
  v1::ActionResult ClearLinkFaults();
  v1::ActionResult SetReplicationLinkFaults(const std::string& member, const ProxyFaults& faults);
  v1::ActionResult ClearReplicationLinkFaults();
  v1::ActionResult SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes);
  // What the fault lease reverts: faults on each path, and whether replication is asynchronous.
  std::vector<std::string> LinkFaultsInForce() const;
  std::vector<std::string> ReplicationLinkFaultsInForce() const;
  bool Asynchronous() const;
  // False when the members never started; throws ClusterError when copying fails.
  bool CopyLogsTo(const std::string& directory) const;
  // The members, any postmaster they left behind, the proxies. Idempotent.
  void Stop();

  // Healthy = 3 running members, one leader, a sync standby when synchronous, two streaming.
  static bool Healthy(const std::vector<MemberStatus>& members, bool synchronous, std::string* reason);

 private:
  DatabaseOptions options_;
  std::function<void()> fault_applied_;
  mutable std::mutex mu_;  // PatroniCluster's calls are not thread-safe
  std::unique_ptr<PatroniCluster> db_;
  std::string data_dir_;
  std::string conninfo_;
  std::vector<std::string> member_names_;
  LinkFaultSet links_;
  LinkFaultSet replication_links_;
  std::optional<std::pair<std::string, std::chrono::steady_clock::time_point>> pending_rejoin_;
};

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_DATABASE_H_
