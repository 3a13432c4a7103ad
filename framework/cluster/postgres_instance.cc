#include "framework/cluster/postgres_instance.h"

#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "framework/cluster/internal/cluster_constants.h"
#include "framework/cluster/internal/free_ports.h"
#include "framework/process/log_tail.h"

namespace aftershock::cluster {
namespace {

using SteadyClock = std::chrono::steady_clock;
using internal::kLogTailLines;
constexpr int kPortAttempts = 3;  // another process may take the picked port before postgres binds it

double SecondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

std::string Conninfo(int port, const std::string& database) {
  return "host=127.0.0.1 port=" + std::to_string(port) + " dbname=" + database + " user=postgres";
}

struct RunAs {
  std::optional<uid_t> uid;
  std::optional<gid_t> gid;
};

RunAs PostgresUserIfRoot() {
  if (::geteuid() != 0) return {};
  const passwd* postgres = ::getpwnam("postgres");
  if (postgres == nullptr) throw std::runtime_error("PostgresInstance: running as root but there is no 'postgres' user");
  return {postgres->pw_uid, postgres->pw_gid};
}

process::ChildOptions PgChild(const std::string& program, std::vector<std::string> args, const std::string& dir,
                              const std::string& log_path, const RunAs& run_as) {
  process::ChildOptions child;
  child.program = program;
  child.args = std::move(args);
  child.log_path = log_path;
  child.run_as_uid = run_as.uid;
  child.run_as_gid = run_as.gid;
  child.working_dir = dir;
  child.extra_env = {{"HOME", dir}, {"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"}, {"LANG", "C.UTF-8"},
                     {"LC_ALL", "C.UTF-8"}, {"PGTZ", "UTC"}};
  if (run_as.uid) {
    child.extra_env["USER"] = "postgres";
    child.extra_env["LOGNAME"] = "postgres";
  }
  return child;
}

void ValidateOptions(const PostgresInstanceOptions& options) {
  if (const std::string why = PostgresIdentifierProblem(options.database); !why.empty()) {
    throw std::invalid_argument("PostgresInstance: database '" + options.database + "': " + why);
  }
  if (options.max_connections < 5 || options.max_connections > 10000) {
    throw std::invalid_argument("PostgresInstance: max_connections " + std::to_string(options.max_connections) +
                                " must be in 5..10000");
  }
  for (const auto& [name, value] : options.settings) {
    if (name.empty() || name.find_first_of("= \t\n") != std::string::npos) {
      throw std::invalid_argument("PostgresInstance: bad setting name '" + name + "'");
    }
    if (name == "port" || name == "listen_addresses" || name == "unix_socket_directories") {
      throw std::invalid_argument("PostgresInstance: setting '" + name + "' is chosen by PostgresInstance");
    }
  }
  if (options.ready_timeout.count() <= 0) throw std::invalid_argument("PostgresInstance: ready_timeout must be > 0");
}

// Polls PQping until the server accepts connections; "" when it does, else why not.
std::string AwaitAcceptingConnections(process::ChildProcess& server, int port, SteadyClock::time_point deadline) {
  const std::string probe = Conninfo(port, "postgres") + " connect_timeout=2";
  PGPing last = PQPING_NO_RESPONSE;
  for (int attempt = 0; attempt < 100000; ++attempt) {  // bounded by the deadline, the count is a backstop
    last = PQping(probe.c_str());
    if (last == PQPING_OK) return "";
    if (!server.Running()) return "exited";
    if (SteadyClock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return last == PQPING_REJECT ? "still rejecting connections (starting up)" : "not answering";
}

void CreateDatabase(int port, const std::string& database, const std::string& log_path) {
  const std::string conninfo = Conninfo(port, "postgres") + " connect_timeout=5";
  PGconn* conn = PQconnectdb(conninfo.c_str());
  std::string error;
  if (PQstatus(conn) != CONNECTION_OK) {
    error = std::string("connect: ") + PQerrorMessage(conn);
  } else {
    PGresult* result = PQexec(conn, ("CREATE DATABASE " + database).c_str());
    if (PQresultStatus(result) != PGRES_COMMAND_OK) error = PQresultErrorMessage(result);
    PQclear(result);
  }
  PQfinish(conn);
  if (!error.empty()) {
    throw std::runtime_error("PostgresInstance: CREATE DATABASE " + database + " failed: " + error + "log tail:\n" +
                             process::TailOfFile(log_path, kLogTailLines));
  }
}

}  // namespace

std::string PostgresIdentifierProblem(const std::string& name) {
  if (name.empty() || name.size() > 63) return "must be 1..63 characters";
  if (!(name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z'))) return "must start with a-z or _";
  for (char c : name) {
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return "only a-z, 0-9 and _ are allowed";
  }
  return "";
}

PostgresInstance PostgresInstance::Start(PostgresInstanceOptions options) {
  ValidateOptions(options);
  const RunAs run_as = PostgresUserIfRoot();
  const auto deadline = SteadyClock::now() + options.ready_timeout;

  PostgresInstance pg;
  pg.scratch_ = process::ScratchDir::Create("aftershock-pg");
  const std::string dir = pg.scratch_.path();
  if (run_as.uid && ::chown(dir.c_str(), *run_as.uid, *run_as.gid) != 0) {
    throw std::runtime_error("PostgresInstance: chown " + dir + ": " + std::strerror(errno));
  }
  pg.data_dir_ = dir + "/data";
  pg.log_path_ = dir + "/postgres.log";
  pg.database_ = options.database;
  pg.stop_timeout_ = options.stop_timeout;

  // 1. initdb: no fsync of the fresh files (a crash during set-up just fails the test), C locale.
  const auto initdb_start = SteadyClock::now();
  const std::string initdb_log = dir + "/initdb.log";
  {
    process::ChildProcess initdb = process::ChildProcess::Start(PgChild(
        options.bin_dir + "/initdb",
        {"-D", pg.data_dir_, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync",
         "--no-instructions"},
        dir, initdb_log, run_as));
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    int code = -1;
    try {
      code = initdb.Wait(std::max(left, std::chrono::milliseconds(1)));
    } catch (const std::runtime_error&) {
      initdb.Stop(std::chrono::seconds(1));
      throw std::runtime_error("PostgresInstance: initdb did not finish within the ready timeout (" +
                               std::to_string(options.ready_timeout.count()) + " s); log tail:\n" +
                               process::TailOfFile(initdb_log, kLogTailLines));
    }
    if (code != 0) {
      throw std::runtime_error("PostgresInstance: initdb exited with code " + std::to_string(code) + "; log tail:\n" +
                               process::TailOfFile(initdb_log, kLogTailLines));
    }
  }
  pg.timings_.initdb_seconds = SecondsSince(initdb_start);

  // 2. postgres on a free loopback port (retried when another process took the port first).
  const auto start = SteadyClock::now();
  std::string why;
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    const std::optional<int> port = internal::FindFreePortBlock("127.0.0.1", 1, 20000, 60000, 64);
    if (!port) throw std::runtime_error("PostgresInstance: found no free loopback port");
    std::vector<std::string> args = {"-D", pg.data_dir_, "-p", std::to_string(*port),
                                     "-c", "listen_addresses=127.0.0.1",
                                     "-c", "unix_socket_directories=" + dir,
                                     "-c", "max_connections=" + std::to_string(options.max_connections),
                                     "-c", std::string("fsync=") + (options.fsync ? "on" : "off"),
                                     "-c", "logging_collector=off"};
    for (const auto& [name, value] : options.settings) {
      args.push_back("-c");
      args.push_back(name + "=" + value);
    }
    pg.server_.emplace(process::ChildProcess::Start(PgChild(options.bin_dir + "/postgres", args, dir, pg.log_path_, run_as)));
    why = AwaitAcceptingConnections(*pg.server_, *port, deadline);
    if (why.empty()) {
      pg.port_ = *port;
      break;
    }
    const std::string tail = process::TailOfFile(pg.log_path_, kLogTailLines);
    const int code = pg.server_->Stop(std::chrono::seconds(2));
    pg.server_.reset();
    const bool port_taken = tail.find("could not bind") != std::string::npos ||
                            tail.find("Address already in use") != std::string::npos;
    if (!port_taken || SteadyClock::now() >= deadline) {
      throw std::runtime_error("PostgresInstance: postgres " + why + (why == "exited" ? " with code " +
                               std::to_string(code) : " within " + std::to_string(options.ready_timeout.count()) +
                               " s") + " on port " + std::to_string(*port) + "; log tail:\n" + tail);
    }
  }
  if (pg.port_ == 0) {
    throw std::runtime_error("PostgresInstance: postgres could not bind a port in " + std::to_string(kPortAttempts) +
                             " attempts; log tail:\n" + process::TailOfFile(pg.log_path_, kLogTailLines));
  }

  // 3. The database.
  CreateDatabase(pg.port_, options.database, pg.log_path_);
  pg.timings_.start_seconds = SecondsSince(start);
  return pg;
}

PostgresInstance::PostgresInstance(PostgresInstance&& other) noexcept { *this = std::move(other); }

PostgresInstance& PostgresInstance::operator=(PostgresInstance&& other) noexcept {
  if (this != &other) {
    Stop();  // ours stops before its directory goes
    exit_code_.reset();
    server_ = std::move(other.server_);
    other.server_.reset();
    scratch_ = std::move(other.scratch_);
    data_dir_ = std::move(other.data_dir_);
    log_path_ = std::move(other.log_path_);
    database_ = std::move(other.database_);
    port_ = std::exchange(other.port_, 0);
    stop_timeout_ = other.stop_timeout_;
    timings_ = other.timings_;
    exit_code_ = std::exchange(other.exit_code_, std::nullopt);
  }
  return *this;
}

PostgresInstance::~PostgresInstance() { Stop(); }

int PostgresInstance::Stop() {
  if (exit_code_) return *exit_code_;
  if (!server_) return -1;
  int code = -1;
  try {
    server_->Signal(SIGINT);  // fast shutdown
    code = server_->Wait(stop_timeout_);
  } catch (...) {
    // Still running after the bound (or the wait failed): SIGTERM then SIGKILL to its group.
    try {
      code = server_->Stop(std::chrono::milliseconds(0));
    } catch (...) {
    }
  }
  exit_code_ = code;
  return code;
}

std::string PostgresInstance::conninfo() const { return Conninfo(port_, database_); }
std::string PostgresInstance::conninfo(const std::string& database) const { return Conninfo(port_, database); }

}  // namespace aftershock::cluster
