#include "framework/cluster/local/database.h"

#include <iostream>

#include "framework/cluster/internal/free_ports.h"
#include "framework/cluster/internal/pg_processes.h"
#include "framework/cluster/local/cluster_error.h"
#include "framework/cluster/local/internal/action_result.h"
#include "framework/cluster/local/internal/janitor.h"
#include "framework/cluster/local/proto_conversion.h"

namespace aftershock::cluster {
namespace {

using Clock = std::chrono::steady_clock;
using internal::Ms;
using internal::Result;
using internal::UnixMs;
using std::chrono::milliseconds;

// A killed primary is restarted once another member leads, or after this long anyway.
constexpr milliseconds kRejoinLeaderWait{30000};

}  // namespace

Database::Database(DatabaseOptions options, std::function<void()> fault_applied)
    : options_(std::move(options)),
      fault_applied_(fault_applied),
      links_("database", fault_applied),
      replication_links_("replication", fault_applied) {}

Database::~Database() { Stop(); }

void Database::PrepareReplicationProxies() {
  if (!options_.replication_through_proxy) return;
  // So that a test can make a standby lag (latency) without touching the service's own links.
  // Patroni names the proxy as the member's connect_address, so the member ports are fixed here.
  std::lock_guard<std::mutex> lock(mu_);
  PatroniClusterOptions& db = options_.patroni;
  if (db.pg_port_base == 0) {
    const std::optional<int> base = internal::FindFreePortBlock(db.host, 3, 20000, 60000, 64);
    if (!base) throw ClusterError(grpc::StatusCode::UNAVAILABLE, "no free block of 3 PostgreSQL ports on " + db.host);
    db.pg_port_base = *base;
  }
  db.replication_ports.clear();
  for (int i = 0; i < 3; ++i) {
    const std::string name = std::string(1, static_cast<char>('a' + i));
    auto proxy = FaultProxy::Start("repl-" + name, "127.0.0.1", 0, db.host, static_cast<std::uint16_t>(db.pg_port_base + i));
    db.replication_ports.push_back(proxy->port());
    replication_links_.Add(name, std::move(proxy));
  }
}

void Database::UseDataDir(const std::string& data_dir) {
  std::lock_guard<std::mutex> lock(mu_);
  options_.patroni.data_dir = data_dir;
  data_dir_ = data_dir;
}

void Database::StartMembers() {
  auto db = PatroniCluster::Start(options_.patroni);
  std::lock_guard<std::mutex> lock(mu_);
  db_ = std::move(db);
  data_dir_ = db_->DataDir();
  member_names_ = db_->MemberNames();
}

void Database::StartServiceProxies() {
  std::lock_guard<std::mutex> lock(mu_);
  const auto endpoints = db_->MemberEndpoints();
  std::vector<std::pair<std::string, int>> client_endpoints;
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    auto proxy = FaultProxy::Start("pg-" + member_names_.at(i), "127.0.0.1", 0, endpoints[i].first,
                                   static_cast<std::uint16_t>(endpoints[i].second));
    client_endpoints.emplace_back("127.0.0.1", proxy->port());
    links_.Add(member_names_.at(i), std::move(proxy));
  }
  db_->SetClientEndpoints(client_endpoints);
  conninfo_ = db_->ConnectionString();
}

void Database::Tick() {
  // Skipped this tick while a Status() holds the database.
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock() || !pending_rejoin_ || !db_) return;
  // It waits for another leader first: back before its leader key expires, the old primary would
  // simply resume, and there would have been no failover at all.
  const auto now = Clock::now();
  if (now < pending_rejoin_->second) return;
  if (now < pending_rejoin_->second + kRejoinLeaderWait) {
    const std::string primary = db_->PrimaryName();
    if (primary.empty() || primary == pending_rejoin_->first) return;
  }
  const std::string name = pending_rejoin_->first;
  pending_rejoin_.reset();
  try {
    db_->RestartMember(name);
    std::cerr << "[cluster] restarted database member pg-" << name << "\n";
  } catch (const std::exception& e) {
    std::cerr << "[cluster] restarting database member pg-" << name << " failed: " << e.what() << "\n";
  }
}

std::string Database::ConnectionString() const {
  std::lock_guard<std::mutex> lock(mu_);
  return conninfo_;
}

std::string Database::DataDir() const {
  std::lock_guard<std::mutex> lock(mu_);
  return data_dir_;
}

std::vector<int> Database::UsedPorts() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<int> ports;
  if (!db_) return ports;
  ports = db_->PgPorts();
  for (int p : db_->RestPorts()) ports.push_back(p);
  ports.push_back(db_->EtcdPort());
  return ports;
}

bool Database::Healthy(const std::vector<MemberStatus>& members, bool synchronous, std::string* reason) {
  int running = 0, leaders = 0, sync = 0, streaming = 0;
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

void Database::FillStatus(v1::ClusterStatus& status, std::string& reasons) const {
  std::lock_guard<std::mutex> lock(mu_);
  status.set_replication(db_ && !db_->Synchronous() ? "asynchronous" : "synchronous");
  if (!db_) {
    reasons += (reasons.empty() ? "" : "; ") + std::string("database: not started");
    return;
  }
  const std::vector<MemberStatus> members = db_->Status();
  std::string db_reason;
  if (!Healthy(members, db_->Synchronous(), &db_reason)) reasons += (reasons.empty() ? "" : "; ") + db_reason;
  if (pending_rejoin_) {
    reasons += (reasons.empty() ? "" : "; ") + std::string("member pg-") + pending_rejoin_->first +
               " is waiting to rejoin";
  }
  for (const MemberStatus& m : members) {
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
    if (const FaultProxy* proxy = links_.ProxyOf(m.name)) {
      out->set_proxy_port(proxy->port());
      *out->mutable_link_faults() = ProxyFaultsToProto(proxy->faults());
      out->set_link_connections(proxy->stats().active);
    }
    if (const FaultProxy* proxy = replication_links_.ProxyOf(m.name)) {
      out->set_replication_proxy_port(proxy->port());
      *out->mutable_replication_link_faults() = ProxyFaultsToProto(proxy->faults());
    }
  }
}

v1::ActionResult Database::KillPrimary() {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> lock(mu_);
  if (!db_) throw ClusterError(grpc::StatusCode::UNAVAILABLE, "the database is not running");
  if (pending_rejoin_) {
    throw ClusterError(grpc::StatusCode::FAILED_PRECONDITION,
                       "member pg-" + pending_rejoin_->first + " has not rejoined yet; never two instances down");
  }
  std::string reason;
  if (!Healthy(db_->Status(), db_->Synchronous(), &reason)) {
    throw ClusterError(grpc::StatusCode::FAILED_PRECONDITION, "refused: the database is not healthy (" + reason + ")");
  }
  const std::string killed = db_->KillPrimary();
  pending_rejoin_.emplace(killed, Clock::now() + options_.member_rejoin_delay);
  return Result(started, "pg-" + killed,
                "killed primary pg-" + killed + "; restarting it once another member leads (after at least " +
                    Ms(options_.member_rejoin_delay) + ")");
}

v1::ActionResult Database::SetLinkFaults(const std::string& member, const ProxyFaults& faults) {
  std::lock_guard<std::mutex> lock(mu_);
  return links_.Set(member, faults);
}

v1::ActionResult Database::ClearLinkFaults() {
  std::lock_guard<std::mutex> lock(mu_);
  return links_.Clear();
}

v1::ActionResult Database::SetReplicationLinkFaults(const std::string& member, const ProxyFaults& faults) {
  std::lock_guard<std::mutex> lock(mu_);
  return replication_links_.Set(member, faults);
}

v1::ActionResult Database::ClearReplicationLinkFaults() {
  std::lock_guard<std::mutex> lock(mu_);
  return replication_links_.Clear();
}

v1::ActionResult Database::SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes) {
  const std::int64_t started = UnixMs();
  std::lock_guard<std::mutex> lock(mu_);
  if (!db_) throw ClusterError(grpc::StatusCode::UNAVAILABLE, "the database is not running");
  if (!synchronous) fault_applied_();
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

std::vector<std::string> Database::LinkFaultsInForce() const {
  std::lock_guard<std::mutex> lock(mu_);
  return links_.InForce();
}

std::vector<std::string> Database::ReplicationLinkFaultsInForce() const {
  std::lock_guard<std::mutex> lock(mu_);
  return replication_links_.InForce();
}

bool Database::Asynchronous() const {
  std::lock_guard<std::mutex> lock(mu_);
  return db_ && !db_->Synchronous();
}

bool Database::CopyLogsTo(const std::string& directory) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!db_) return false;
  try {
    db_->CopyLogsTo(directory);
  } catch (const std::exception& e) {
    throw ClusterError(grpc::StatusCode::INTERNAL, e.what());
  }
  return true;
}

void Database::Stop() {
  std::unique_ptr<PatroniCluster> db;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_rejoin_.reset();
    db = std::move(db_);
  }
  if (db) {
    std::vector<pid_t> postmasters;
    for (const std::string& name : db->MemberNames()) {
      if (auto pid = internal::LivePostmasterPid(db->DataDir() + "/" + name + "/data")) postmasters.push_back(*pid);
    }
    try {
      db->Stop();
    } catch (const std::exception& e) {
      std::cerr << "[cluster] database stop: " << e.what() << "\n";
    }
    internal::KillLeftoverPostgres(postmasters, data_dir_);
    db.reset();
  }
  std::lock_guard<std::mutex> lock(mu_);
  links_.StopAll();
  replication_links_.StopAll();
}

}  // namespace aftershock::cluster
