// PatroniCluster: the database half of the embedded local cluster — one etcd member and three
// PostgreSQL 15 instances (members "a", "b", "c") managed by Patroni with strict synchronous
// replication, all real processes on loopback, owned and cleaned up by this object.
//
//   PatroniClusterOptions options;            // ports are picked free, data dir is a fresh temp dir
//   auto cluster = PatroniCluster::Start(options);   // returns at steady state or throws
//   std::string conninfo = cluster->ConnectionString();  // libpq, follows the primary
//   std::string killed = cluster->KillPrimary();          // SIGKILL its Patroni + postmaster
//   ...                                                     // Patroni promotes the sync standby
//   cluster->RestartMember(killed);                         // rejoins via pg_rewind
//   cluster->WaitHealthy(std::chrono::seconds(60));
//   cluster->Stop();                                        // or let the destructor do it
//
// Run as root, every process runs as the `postgres` user and the data dir is chowned to it.
// Chaos rule from the seeds: never take down more than one member at a time; with one sync
// standby, losing two members blocks writes (correct PostgreSQL behaviour, not a bug).
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_PATRONI_CLUSTER_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_PATRONI_CLUSTER_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/process/child_process.h"

namespace aftershock::cluster {

struct PatroniClusterOptions {
  // Empty: a fresh mkdtemp directory under /tmp. Otherwise it must not exist or be empty. Removed
  // by Stop() either way.
  std::string data_dir;
  std::string host = "127.0.0.1";  // An IPv4 literal.
  // 0 = pick a bindable port (a random block in [20000, 60000)).
  int etcd_client_port = 0;
  int etcd_peer_port = 0;
  int pg_port_base = 0;    // Members use base, base+1, base+2.
  int rest_port_base = 0;  // Patroni REST APIs, likewise.
  std::string scope = "aftershock";
  int ttl = 10;
  int loop_wait = 2;
  int retry_timeout = 3;
  // synchronous_mode + synchronous_mode_strict, synchronous_node_count 1. Changeable at run time
  // with SetReplicationMode.
  bool synchronous = true;
  // Empty: members replicate from each other's real ports. Otherwise one port on `host` per member
  // (a, b, c) that forwards to that member, e.g. a fault proxy: it becomes the member's Patroni
  // connect_address, so replication, pg_rewind and base backups to and from it go through there.
  std::vector<int> replication_ports;
  std::string app_user = "aftershock";
  std::string app_password;  // Empty: a random one.
  std::string app_database = "aftershock";
  std::chrono::seconds ready_timeout{120};
  std::string bin_dir = "/usr/lib/postgresql/15/bin";
  std::string patroni_program = "/usr/bin/patroni";
  std::string etcd_program = "/usr/bin/etcd";
  // Called with the pid of every process this object starts (etcd, each Patroni, a restarted one),
  // right after it started; each leads its own process group. The local cluster's janitor records
  // them, so that a SIGKILLed supervisor leaves none of their children (initdb, pg_basebackup).
  std::function<void(pid_t)> on_child_started;
};

struct MemberStatus {
  std::string name;
  std::string role;   // "leader" | "sync_standby" | "replica" | "" when absent from the DCS.
  std::string state;  // Patroni's state ("running", "creating replica", ...) or "absent".
  int timeline = 0;
  std::optional<std::int64_t> lag_bytes;  // Replicas only; nullopt when Patroni says "unknown".
  bool streaming = false;  // Listed as "streaming" in the leader's pg_stat_replication.
  int pg_port = 0;
  pid_t patroni_pid = -1;  // -1 when this object's Patroni for the member is not running.
  std::optional<pid_t> postmaster_pid;
};

class PatroniCluster {
 public:
  // Brings the cluster up and waits for steady state: one leader, two streaming replicas, one of
  // them sync_standby, all running. Throws std::runtime_error (naming the member that never got
  // ready, its state and its log tail) on timeout; everything started is stopped first.
  static std::unique_ptr<PatroniCluster> Start(const PatroniClusterOptions& options);

  PatroniCluster(const PatroniCluster&) = delete;
  PatroniCluster& operator=(const PatroniCluster&) = delete;
  ~PatroniCluster();

  // The member whose REST API answers 200 on /primary; "" when none does.
  std::string PrimaryName();

  // Patroni's dynamic configuration, PATCHed through the REST API: synchronous (strict, one named
  // standby) or asynchronous with `maximum_lag_on_failover_bytes` (0 = Patroni's default 1 MiB).
  // Waits until the leader has applied it (a sync standby named, or none); throws
  // std::runtime_error naming what did not happen within `timeout`.
  void SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes, std::chrono::seconds timeout);
  // The mode last set (Start's options, then SetReplicationMode); Healthy() follows it.
  bool Synchronous() const { return synchronous_; }
  std::vector<MemberStatus> Status();
  // Three members running, one leader, one sync standby, both replicas streaming.
  bool Healthy();
  // Throws std::runtime_error with the last status when not healthy within `timeout`.
  void WaitHealthy(std::chrono::seconds timeout);

  // SIGKILLs the member's Patroni (and its process group) and its postmaster with the
  // postmaster's children together, like a pod kill; killing only the postmaster would just make
  // Patroni restart it in place. Only exact PIDs are signalled. Waits (bounded) until they are gone.
  void KillMember(const std::string& name);
  // Kills the current primary and returns its name. Throws when there is no primary.
  std::string KillPrimary();
  // Starts the member's Patroni again (after KillMember); it rejoins with pg_rewind or a re-clone.
  void RestartMember(const std::string& name);

  // libpq multi-host, target_session_attrs=read-write: the analogue of CloudNativePG's -rw service.
  // Uses the client endpoints (SetClientEndpoints) when set, else MemberEndpoints().
  std::string ConnectionString() const;
  // The real (host, PostgreSQL port) of members a, b, c.
  std::vector<std::pair<std::string, int>> MemberEndpoints() const;
  // Redirects ConnectionString() to other endpoints, e.g. a fault proxy in front of each member.
  // Empty restores the real ones. Replication between members is not redirected.
  void SetClientEndpoints(std::vector<std::pair<std::string, int>> endpoints);

  std::vector<std::string> MemberNames() const;
  std::vector<int> PgPorts() const;
  std::vector<int> RestPorts() const;
  int EtcdPort() const;
  const std::string& DataDir() const { return data_dir_; }
  const std::string& AppUser() const { return options_.app_user; }
  const std::string& AppPassword() const { return options_.app_password; }
  const std::string& AppDatabase() const { return options_.app_database; }
  std::string MemberLogPath(const std::string& name) const;
  // Copies etcd.log and each member's Patroni/PostgreSQL log into `dir` (created), for artifacts.
  // Call before Stop(), which removes the data dir. Throws std::runtime_error on failure.
  void CopyLogsTo(const std::string& dir) const;

  // Every PID this object started or observed as a postmaster (for leak checks after Stop()).
  std::vector<pid_t> KnownPids() const { return known_pids_; }

  // Kills every Patroni (SIGKILL), then every postmaster found by its pid file (SIGQUIT: immediate
  // shutdown), then stops etcd, and removes the data dir: a teardown, never a clean shutdown (the data
  // is deleted anyway). Idempotent.
  void Stop();

 private:
  struct Member {
    std::string name;
    std::string dir;
    int pg_port = 0;
    int rest_port = 0;
    std::optional<process::ChildProcess> patroni;
  };

  explicit PatroniCluster(PatroniClusterOptions options);

  void Prepare();
  void StartEtcd();
  void StartPatroni(Member& member);
  void WaitSteadyState(std::chrono::seconds timeout, const std::string& what);
  std::string DescribeUnready(const std::vector<MemberStatus>& status) const;
  Member& FindMember(const std::string& name);
  std::string DataDirOf(const Member& member) const { return member.dir + "/data"; }
  void Remember(pid_t pid);
  void KillPostgres(const Member& member, int first_signal, std::chrono::milliseconds grace);

  PatroniClusterOptions options_;
  std::string data_dir_;
  bool created_data_dir_ = false;
  std::optional<uid_t> run_uid_;
  std::optional<gid_t> run_gid_;
  std::string superuser_password_;
  std::string replication_password_;
  std::string rewind_password_;
  std::vector<Member> members_;
  std::optional<process::ChildProcess> etcd_;
  std::vector<std::pair<std::string, int>> client_endpoints_;
  std::vector<pid_t> known_pids_;
  bool synchronous_ = true;
  bool stopped_ = false;
};

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_PATRONI_CLUSTER_H_
