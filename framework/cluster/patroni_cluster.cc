#include "framework/cluster/patroni_cluster.h"

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "framework/cluster/internal/cluster_constants.h"
#include "framework/cluster/internal/free_ports.h"
#include "framework/cluster/internal/patroni_config.h"
#include "framework/cluster/internal/pg_processes.h"
#include "framework/net/http_exchange.h"

namespace aftershock::cluster {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

using internal::kLogTailLines;
using internal::kMembers;
using internal::kRestTimeout;

constexpr const char* kMemberNames[kMembers] = {"a", "b", "c"};

std::string RandomToken(std::size_t length) {
  static constexpr char kAlphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<std::size_t> pick(0, sizeof(kAlphabet) - 2);
  std::string token;
  for (std::size_t i = 0; i < length; ++i) token += kAlphabet[pick(random)];
  return token;
}

void ChownPath(const std::string& path, std::optional<uid_t> uid, std::optional<gid_t> gid) {
  if (!uid) return;
  if (::chown(path.c_str(), *uid, gid.value_or(static_cast<gid_t>(-1))) != 0) {
    throw std::runtime_error("PatroniCluster: chown " + path + ": " + std::strerror(errno));
  }
}

void MakeDir(const std::string& path, mode_t mode, std::optional<uid_t> uid,
             std::optional<gid_t> gid) {
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) {
    throw std::runtime_error("PatroniCluster: mkdir " + path + ": " + std::strerror(errno));
  }
  ::chmod(path.c_str(), mode);
  ChownPath(path, uid, gid);
}

void WriteFile(const std::string& path, const std::string& content, mode_t mode,
               std::optional<uid_t> uid, std::optional<gid_t> gid) {
  {
    std::ofstream out(path, std::ios::trunc);
    out << content;
    if (!out) throw std::runtime_error("PatroniCluster: cannot write " + path);
  }
  ::chmod(path.c_str(), mode);
  ChownPath(path, uid, gid);
}

}  // namespace

std::unique_ptr<PatroniCluster> PatroniCluster::Start(const PatroniClusterOptions& options) {
  // Owned from the first line: if anything below throws, the destructor stops what was started.
  std::unique_ptr<PatroniCluster> cluster(new PatroniCluster(options));
  cluster->Prepare();
  cluster->StartEtcd();
  for (Member& member : cluster->members_) cluster->StartPatroni(member);
  cluster->WaitSteadyState(options.ready_timeout, "bring-up to steady state");
  return cluster;
}

PatroniCluster::PatroniCluster(PatroniClusterOptions options)
    : options_(std::move(options)), synchronous_(options_.synchronous) {
  if (!options_.replication_ports.empty() && static_cast<int>(options_.replication_ports.size()) != kMembers) {
    throw std::invalid_argument("PatroniCluster: replication_ports needs one port per member (" +
                                std::to_string(kMembers) + "), got " +
                                std::to_string(options_.replication_ports.size()));
  }
  if (options_.app_password.empty()) options_.app_password = RandomToken(24);
  superuser_password_ = RandomToken(24);
  replication_password_ = RandomToken(24);
  rewind_password_ = RandomToken(24);

  // Ports: explicit ones must be bindable now; the rest come from one free block that avoids them.
  std::set<int> explicit_ports;
  auto check_explicit = [&](int port, const char* what) {
    if (port == 0) return;
    if (!internal::PortBindable(options_.host, port)) {
      throw std::runtime_error(std::string("PatroniCluster: ") + what + " port " +
                               std::to_string(port) + " on " + options_.host + " is not bindable");
    }
    explicit_ports.insert(port);
  };
  check_explicit(options_.etcd_client_port, "etcd client");
  check_explicit(options_.etcd_peer_port, "etcd peer");
  for (int i = 0; i < kMembers; ++i) {
    check_explicit(options_.pg_port_base == 0 ? 0 : options_.pg_port_base + i, "PostgreSQL");
    check_explicit(options_.rest_port_base == 0 ? 0 : options_.rest_port_base + i, "Patroni REST");
  }
  const bool needs_block = options_.etcd_client_port == 0 || options_.etcd_peer_port == 0 ||
                           options_.pg_port_base == 0 || options_.rest_port_base == 0;
  if (needs_block) {
    constexpr int kBlock = 2 + 2 * kMembers;
    int base = -1;
    for (int attempt = 0; attempt < 16 && base < 0; ++attempt) {
      const int candidate =
          internal::FindFreePortBlock(options_.host, kBlock, 20000, 60000, 64).value_or(-1);
      const bool overlaps =
          std::any_of(explicit_ports.begin(), explicit_ports.end(),
                      [&](int port) { return port >= candidate && port < candidate + kBlock; });
      if (candidate > 0 && !overlaps) base = candidate;
    }
    if (base < 0) throw std::runtime_error("PatroniCluster: found no block of free ports");
    if (options_.etcd_client_port == 0) options_.etcd_client_port = base;
    if (options_.etcd_peer_port == 0) options_.etcd_peer_port = base + 1;
    if (options_.pg_port_base == 0) options_.pg_port_base = base + 2;
    if (options_.rest_port_base == 0) options_.rest_port_base = base + 2 + kMembers;
  }
}

PatroniCluster::~PatroniCluster() {
  try {
    Stop();
  } catch (...) {
    // A destructor must not throw; Stop() already signalled everything it could.
  }
}

void PatroniCluster::Prepare() {
  if (::geteuid() == 0) {
    // PostgreSQL refuses to run as root.
    const passwd* postgres = ::getpwnam("postgres");
    if (postgres == nullptr) {
      throw std::runtime_error("PatroniCluster: running as root but there is no 'postgres' user");
    }
    run_uid_ = postgres->pw_uid;
    run_gid_ = postgres->pw_gid;
  }

  if (options_.data_dir.empty()) {
    std::string pattern = "/tmp/aftershock-db-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error(std::string("PatroniCluster: mkdtemp: ") + std::strerror(errno));
    }
    data_dir_ = pattern;
  } else {
    data_dir_ = fs::absolute(options_.data_dir).lexically_normal().string();
    std::error_code ec;
    if (fs::exists(data_dir_, ec) && !fs::is_empty(data_dir_, ec)) {
      data_dir_.clear();  // Not ours: never remove it.
      throw std::runtime_error("PatroniCluster: data_dir " + options_.data_dir +
                               " exists and is not empty");
    }
    fs::create_directories(data_dir_, ec);
    if (ec) throw std::runtime_error("PatroniCluster: create " + data_dir_ + ": " + ec.message());
  }
  created_data_dir_ = true;
  MakeDir(data_dir_, 0700, run_uid_, run_gid_);
  MakeDir(data_dir_ + "/etcd", 0700, run_uid_, run_gid_);

  const std::string sql_path = data_dir_ + "/app.sql";
  const std::string script_path = data_dir_ + "/post_bootstrap.sh";
  WriteFile(sql_path,
            internal::RenderAppSql(options_.app_user, options_.app_password, options_.app_database),
            0600, run_uid_, run_gid_);
  WriteFile(script_path, internal::RenderPostBootstrapScript(options_.bin_dir + "/psql", sql_path),
            0700, run_uid_, run_gid_);

  internal::PatroniClusterConfig config;
  config.scope = options_.scope;
  config.host = options_.host;
  config.etcd_client_port = options_.etcd_client_port;
  config.ttl = options_.ttl;
  config.loop_wait = options_.loop_wait;
  config.retry_timeout = options_.retry_timeout;
  config.synchronous = options_.synchronous;
  config.bin_dir = options_.bin_dir;
  config.post_bootstrap_script = script_path;
  config.superuser_password = superuser_password_;
  config.replication_password = replication_password_;
  config.rewind_password = rewind_password_;

  for (int i = 0; i < kMembers; ++i) {
    Member member;
    member.name = kMemberNames[i];
    member.dir = data_dir_ + "/" + member.name;
    member.pg_port = options_.pg_port_base + i;
    member.rest_port = options_.rest_port_base + i;
    MakeDir(member.dir, 0700, run_uid_, run_gid_);
    internal::PatroniMemberConfig member_config{member.name, member.dir, member.pg_port, member.rest_port,
                                                options_.replication_ports.empty() ? 0 : options_.replication_ports[i]};
    WriteFile(data_dir_ + "/" + member.name + ".yml",
              internal::RenderPatroniYaml(config, member_config), 0600, run_uid_, run_gid_);
    members_.push_back(std::move(member));
  }
}

void PatroniCluster::StartEtcd() {
  const std::string client_url =
      "http://" + options_.host + ":" + std::to_string(options_.etcd_client_port);
  const std::string peer_url =
      "http://" + options_.host + ":" + std::to_string(options_.etcd_peer_port);
  const std::string name = options_.scope + "-etcd";
  process::ChildOptions child;
  child.program = options_.etcd_program;
  child.args = {"--name", name,
                "--data-dir", data_dir_ + "/etcd/data",
                "--listen-client-urls", client_url,
                "--advertise-client-urls", client_url,
                "--listen-peer-urls", peer_url,
                "--initial-advertise-peer-urls", peer_url,
                "--initial-cluster", name + "=" + peer_url,
                "--initial-cluster-state", "new",
                "--initial-cluster-token", options_.scope + "-" + RandomToken(8),
                "--logger", "zap",
                "--log-outputs", "stderr"};
  child.log_path = data_dir_ + "/etcd.log";
  child.run_as_uid = run_uid_;
  child.run_as_gid = run_gid_;
  child.working_dir = data_dir_;
  child.extra_env = {{"HOME", data_dir_}, {"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"}};
  etcd_.emplace(process::ChildProcess::Start(child));
  Remember(etcd_->pid());
  if (options_.on_child_started) options_.on_child_started(etcd_->pid());

  const auto deadline = std::chrono::steady_clock::now() + seconds(20);
  while (true) {
    const net::HttpResult health =
        net::HttpExchange({.host = options_.host, .port = options_.etcd_client_port, .target = "/health"}, kRestTimeout);
    if (health.success() && health.body.find("true") != std::string::npos) return;
    if (!etcd_->Running()) {
      throw std::runtime_error("PatroniCluster: etcd exited during start-up; log tail:\n" +
                               internal::TailOfFile(child.log_path, kLogTailLines));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      throw std::runtime_error("PatroniCluster: etcd not healthy within 20 s (" +
                               (health.error.empty() ? health.body : health.error) +
                               "); log tail:\n" +
                               internal::TailOfFile(child.log_path, kLogTailLines));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

void PatroniCluster::StartPatroni(Member& member) {
  process::ChildOptions child;
  child.program = options_.patroni_program;
  child.args = {data_dir_ + "/" + member.name + ".yml"};
  child.log_path = MemberLogPath(member.name);
  child.run_as_uid = run_uid_;
  child.run_as_gid = run_gid_;
  child.working_dir = member.dir;
  child.extra_env = {{"HOME", member.dir},
                     {"PATH", options_.bin_dir + ":/usr/sbin:/usr/bin:/sbin:/bin"},
                     {"LANG", "C.UTF-8"},
                     {"LC_ALL", "C.UTF-8"}};
  if (run_uid_) {
    child.extra_env["USER"] = "postgres";
    child.extra_env["LOGNAME"] = "postgres";
  }
  member.patroni.reset();
  member.patroni.emplace(process::ChildProcess::Start(child));
  Remember(member.patroni->pid());
  if (options_.on_child_started) options_.on_child_started(member.patroni->pid());
}

std::string PatroniCluster::MemberLogPath(const std::string& name) const {
  return data_dir_ + "/" + name + ".log";
}

void PatroniCluster::CopyLogsTo(const std::string& dir) const {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("PatroniCluster: create " + dir + ": " + ec.message());
  std::vector<std::string> logs = {data_dir_ + "/etcd.log"};
  for (const Member& member : members_) logs.push_back(MemberLogPath(member.name));
  for (const std::string& log : logs) {
    if (!fs::exists(log, ec)) continue;
    const fs::path to = fs::path(dir) / fs::path(log).filename();
    // The folder is the caller's (the supervisor may run as root): never write through a symlink.
    if (fs::is_symlink(fs::symlink_status(to, ec))) {
      throw std::runtime_error("PatroniCluster: refusing to copy " + log + " onto the symlink " + to.string());
    }
    fs::copy_file(log, to, fs::copy_options::overwrite_existing, ec);
    if (ec) throw std::runtime_error("PatroniCluster: copy " + log + ": " + ec.message());
  }
}

void PatroniCluster::Remember(pid_t pid) {
  if (pid > 0 && std::find(known_pids_.begin(), known_pids_.end(), pid) == known_pids_.end()) {
    known_pids_.push_back(pid);
  }
}

PatroniCluster::Member& PatroniCluster::FindMember(const std::string& name) {
  for (Member& member : members_) {
    if (member.name == name) return member;
  }
  throw std::invalid_argument("PatroniCluster: no member named '" + name + "'");
}

void PatroniCluster::KillMember(const std::string& name) {
  Member& member = FindMember(name);
  if (!member.patroni || !member.patroni->Running()) {
    throw std::runtime_error("PatroniCluster: KillMember(" + name + "): its Patroni is not running");
  }
  const pid_t patroni_pid = member.patroni->pid();
  const std::optional<pid_t> postmaster = internal::LivePostmasterPid(DataDirOf(member));
  std::vector<pid_t> postgres_pids;
  if (postmaster) {
    // The postmaster first, then the children listed now: a postmaster that saw a backend die
    // first would start crash recovery and fork new ones (as KillLeftoverPostgres found).
    postgres_pids.push_back(*postmaster);
    for (pid_t child : internal::ChildPids(*postmaster)) postgres_pids.push_back(child);
  }
  // Patroni leads its own process group (pg_rewind / pg_basebackup run inside it); the
  // postmaster is detached (setsid), so it and its backends are signalled by PID.
  ::kill(-patroni_pid, SIGKILL);
  member.patroni->Signal(SIGKILL);
  for (pid_t pid : postgres_pids) {
    Remember(pid);
    ::kill(pid, SIGKILL);
  }
  member.patroni->Wait(seconds(10));
  member.patroni.reset();
  if (!internal::WaitAllGone(postgres_pids, seconds(10))) {
    throw std::runtime_error("PatroniCluster: KillMember(" + name +
                             "): PostgreSQL processes still alive 10 s after SIGKILL");
  }
}

std::string PatroniCluster::KillPrimary() {
  const std::string primary = PrimaryName();
  if (primary.empty()) throw std::runtime_error("PatroniCluster: KillPrimary: no primary found");
  KillMember(primary);
  return primary;
}

void PatroniCluster::RestartMember(const std::string& name) {
  Member& member = FindMember(name);
  if (member.patroni && member.patroni->Running()) {
    throw std::runtime_error("PatroniCluster: RestartMember(" + name + "): already running");
  }
  StartPatroni(member);
}

std::vector<std::pair<std::string, int>> PatroniCluster::MemberEndpoints() const {
  std::vector<std::pair<std::string, int>> endpoints;
  for (const Member& member : members_) endpoints.emplace_back(options_.host, member.pg_port);
  return endpoints;
}

void PatroniCluster::SetClientEndpoints(std::vector<std::pair<std::string, int>> endpoints) {
  client_endpoints_ = std::move(endpoints);
}

std::string PatroniCluster::ConnectionString() const {
  return internal::BuildConnectionString(
      client_endpoints_.empty() ? MemberEndpoints() : client_endpoints_, options_.app_database,
      options_.app_user, options_.app_password);
}

std::vector<std::string> PatroniCluster::MemberNames() const {
  std::vector<std::string> names;
  for (const Member& member : members_) names.push_back(member.name);
  return names;
}

std::vector<int> PatroniCluster::PgPorts() const {
  std::vector<int> ports;
  for (const Member& member : members_) ports.push_back(member.pg_port);
  return ports;
}

std::vector<int> PatroniCluster::RestPorts() const {
  std::vector<int> ports;
  for (const Member& member : members_) ports.push_back(member.rest_port);
  return ports;
}

int PatroniCluster::EtcdPort() const { return options_.etcd_client_port; }

void PatroniCluster::KillPostgres(const Member& member, int first_signal, milliseconds grace) {
  const std::optional<pid_t> postmaster = internal::LivePostmasterPid(DataDirOf(member));
  if (!postmaster) return;
  std::vector<pid_t> pids = internal::ChildPids(*postmaster);
  pids.push_back(*postmaster);
  for (pid_t pid : pids) Remember(pid);
  ::kill(*postmaster, first_signal);  // SIGQUIT: immediate shutdown, the postmaster tells its children.
  if (internal::WaitAllGone(pids, grace)) return;
  for (pid_t pid : pids) ::kill(pid, SIGKILL);
  internal::WaitAllGone(pids, seconds(5));
}

void PatroniCluster::Stop() {
  if (stopped_) return;
  stopped_ = true;
  // The data dir is removed below, so nothing needs a clean shutdown: every Patroni is killed at once
  // (SIGKILL to its process group: none can restart its PostgreSQL or fail over to another), then
  // every postmaster gets SIGQUIT (immediate shutdown, its children with it). A graceful stop
  // (Patroni's SIGTERM, PostgreSQL's fast shutdown and its checkpoint) took about 5 s of every
  // teardown, and each test that starts a cluster pays one (docs/ci.md).
  for (Member& member : members_) {
    if (member.patroni && member.patroni->Running()) member.patroni->Signal(SIGKILL);
  }
  for (Member& member : members_) {
    if (member.patroni) member.patroni->Stop(seconds(5));
    member.patroni.reset();
  }
  for (const Member& member : members_) KillPostgres(member, SIGQUIT, seconds(5));
  if (etcd_) etcd_->Stop(seconds(5));
  etcd_.reset();
  if (created_data_dir_ && !data_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(data_dir_, ec);
  }
}

}  // namespace aftershock::cluster
