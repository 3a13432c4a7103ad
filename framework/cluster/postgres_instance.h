// PostgresInstance: one throwaway PostgreSQL 15 server for a target that needs its own database
// (no Patroni, no replicas): initdb into a scratch directory, `postgres` on a free loopback port,
// one database created, stopped by PID and removed on destruction.
//
// Run as root, initdb and the server run as the `postgres` user (PostgreSQL refuses root) and the
// scratch directory is chowned to it; otherwise they run as the caller. Authentication is `trust`
// on 127.0.0.1 and on the Unix socket, which lives in the 0700 scratch directory: a test database
// on loopback, never a production setting. Start-up is bounded (ready_timeout) and every failure
// throws std::runtime_error naming the step and quoting the tail of the server's log. Destruction
// (or Stop()) sends SIGINT (fast shutdown: open transactions are rolled back, clients disconnected),
// waits up to stop_timeout, then SIGKILLs the postmaster's process group.
//
//   PostgresInstance pg = PostgresInstance::Start({.database = "payments", .max_connections = 40});
//   PGconn* conn = PQconnectdb(pg.conninfo().c_str());  // "host=127.0.0.1 port=... dbname=payments ..."
//   std::cout << pg.timings().initdb_seconds << "\n";     // what the start cost
//   ...                                                   // the destructor stops it and removes the dir
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_POSTGRES_INSTANCE_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_POSTGRES_INSTANCE_H_

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/process/child_process.h"
#include "framework/process/scratch_dir.h"

namespace aftershock::cluster {

struct PostgresInstanceOptions {
  std::string bin_dir = "/usr/lib/postgresql/15/bin";  // initdb and postgres
  std::string database = "aftershock";  // created after start; [a-z_][a-z0-9_]*, at most 63 characters
  int max_connections = 100;            // PostgreSQL's max_connections (3 of them reserved for superusers)
  bool fsync = true;                    // off only where a crash may lose the data (speed runs)
  // More settings for `postgres -c name=value`, e.g. {"shared_buffers", "64MB"}.
  std::vector<std::pair<std::string, std::string>> settings{};
  std::chrono::seconds ready_timeout{30};                 // initdb + start + CREATE DATABASE
  std::chrono::milliseconds stop_timeout{10000};           // fast shutdown, then SIGKILL
};

// What start-up cost, for reports (the suite starts one per scenario or per set).
struct PostgresStartTimings {
  double initdb_seconds = 0;
  double start_seconds = 0;  // from `postgres` launched to the database created
};

class PostgresInstance {
 public:
  // Throws std::invalid_argument for bad options, std::runtime_error when a step fails.
  static PostgresInstance Start(PostgresInstanceOptions options = {});

  PostgresInstance(PostgresInstance&& other) noexcept;
  PostgresInstance& operator=(PostgresInstance&& other) noexcept;
  PostgresInstance(const PostgresInstance&) = delete;
  PostgresInstance& operator=(const PostgresInstance&) = delete;
  ~PostgresInstance();

  // libpq keyword/value conninfo of the created database (TCP on 127.0.0.1, user postgres).
  std::string conninfo() const;
  // The same for another database of the server, e.g. "postgres".
  std::string conninfo(const std::string& database) const;
  int port() const { return port_; }
  pid_t pid() const { return server_ ? server_->pid() : -1; }
  const std::string& data_dir() const { return data_dir_; }
  const std::string& log_path() const { return log_path_; }
  const std::string& database() const { return database_; }
  const PostgresStartTimings& timings() const { return timings_; }
  // True while the postmaster runs.
  bool Running() { return server_ && server_->Running(); }
  // Fast shutdown (SIGINT), up to stop_timeout, then SIGKILL; returns the exit code. Idempotent.
  int Stop();

 private:
  PostgresInstance() = default;

  process::ScratchDir scratch_;    // before server_: the server stops before its files go
  std::optional<process::ChildProcess> server_;
  std::string data_dir_;
  std::string log_path_;
  std::string database_;
  int port_ = 0;
  std::chrono::milliseconds stop_timeout_{10000};
  PostgresStartTimings timings_;
  std::optional<int> exit_code_;
};

// "" when `name` can be created unquoted ([a-z_][a-z0-9_]*, 1..63); else why not.
std::string PostgresIdentifierProblem(const std::string& name);

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_POSTGRES_INSTANCE_H_
