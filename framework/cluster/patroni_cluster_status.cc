#include "framework/cluster/patroni_cluster.h"

#include <signal.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "framework/cluster/internal/cluster_constants.h"
#include "framework/cluster/internal/pg_processes.h"
#include "framework/net/http_exchange.h"

// PatroniCluster's observations: the members' status from Patroni's REST API, health, steady
// state, the primary, the replication mode at run time (the start-up and actions are in
// patroni_cluster.cc).
namespace aftershock::cluster {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

using internal::kLogTailLines;
using internal::kMembers;
using internal::kRestTimeout;

constexpr milliseconds kPollInterval{500};

std::optional<Json> GetJson(const std::string& host, int port, const std::string& target) {
  const net::HttpResult result = net::HttpExchange({.host = host, .port = port, .target = target}, kRestTimeout);
  if (!result.answered()) return std::nullopt;
  Json parsed = Json::parse(result.body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return std::nullopt;
  return parsed;
}

bool IsReady(const MemberStatus& member) {
  if (member.state != "running") return false;
  return member.role == "leader" || member.streaming;
}

std::string FormatStatus(const MemberStatus& member) {
  std::string out = member.name + ": role=" + (member.role.empty() ? "-" : member.role) +
                    " state=" + member.state + " timeline=" + std::to_string(member.timeline) +
                    " streaming=" + (member.streaming ? "yes" : "no") +
                    " pg_port=" + std::to_string(member.pg_port) +
                    " patroni_pid=" + std::to_string(member.patroni_pid);
  if (member.lag_bytes) out += " lag_bytes=" + std::to_string(*member.lag_bytes);
  return out;
}


}  // namespace

std::vector<MemberStatus> PatroniCluster::Status() {
  // The DCS view, from the first member whose REST API answers.
  std::optional<Json> cluster_json;
  for (const Member& member : members_) {
    cluster_json = GetJson(options_.host, member.rest_port, "/cluster");
    if (cluster_json && cluster_json->contains("members")) break;
    cluster_json.reset();
  }
  std::map<std::string, Json> dcs_members;
  std::string leader;
  if (cluster_json) {
    for (const Json& entry : (*cluster_json)["members"]) {
      const std::string name = entry.value("name", "");
      dcs_members[name] = entry;
      if (entry.value("role", "") == "leader") leader = name;
    }
  }
  // Streaming is what the leader's pg_stat_replication says, not what a replica believes.
  std::set<std::string> streaming;
  if (!leader.empty()) {
    for (const Member& member : members_) {
      if (member.name != leader) continue;
      const std::optional<Json> patroni = GetJson(options_.host, member.rest_port, "/patroni");
      if (patroni && patroni->contains("replication") && (*patroni)["replication"].is_array()) {
        for (const Json& sender : (*patroni)["replication"]) {
          if (sender.value("state", "") == "streaming") {
            streaming.insert(sender.value("application_name", ""));
          }
        }
      }
    }
  }

  std::vector<MemberStatus> result;
  for (Member& member : members_) {
    MemberStatus status;
    status.name = member.name;
    status.pg_port = member.pg_port;
    status.state = "absent";
    if (member.patroni && member.patroni->Running()) status.patroni_pid = member.patroni->pid();
    status.postmaster_pid = internal::LivePostmasterPid(DataDirOf(member));
    if (status.postmaster_pid) Remember(*status.postmaster_pid);
    const auto found = dcs_members.find(member.name);
    if (found != dcs_members.end()) {
      const Json& entry = found->second;
      status.role = entry.value("role", "");
      status.state = entry.value("state", "");
      if (entry.contains("timeline") && entry["timeline"].is_number_integer()) {
        status.timeline = entry["timeline"].get<int>();
      }
      if (entry.contains("lag") && entry["lag"].is_number_integer()) {
        status.lag_bytes = entry["lag"].get<std::int64_t>();
      }
    }
    status.streaming = status.role != "leader" && streaming.count(member.name) > 0;
    result.push_back(std::move(status));
  }
  return result;
}

bool PatroniCluster::Healthy() {
  const std::vector<MemberStatus> status = Status();
  int leaders = 0;
  int sync_standbys = 0;
  for (const MemberStatus& member : status) {
    if (!IsReady(member) || member.patroni_pid < 0) return false;
    leaders += member.role == "leader" ? 1 : 0;
    sync_standbys += member.role == "sync_standby" ? 1 : 0;
  }
  return static_cast<int>(status.size()) == kMembers && leaders == 1 &&
         (synchronous_ ? sync_standbys == 1 : sync_standbys == 0);
}

std::string PatroniCluster::DescribeUnready(const std::vector<MemberStatus>& status) const {
  std::string out;
  int leaders = 0;
  int sync_standbys = 0;
  for (const MemberStatus& member : status) {
    leaders += member.role == "leader" ? 1 : 0;
    sync_standbys += member.role == "sync_standby" ? 1 : 0;
  }
  bool named_someone = false;
  for (const MemberStatus& member : status) {
    if (IsReady(member) && member.patroni_pid >= 0) continue;
    named_someone = true;
    out += "member " + member.name + " never got ready (" + FormatStatus(member) + "); log tail:\n" +
           internal::TailOfFile(MemberLogPath(member.name), kLogTailLines);
  }
  if (!named_someone) {
    out += "every member is running but leaders=" + std::to_string(leaders) +
           " sync_standbys=" + std::to_string(sync_standbys) + ":\n";
    for (const MemberStatus& member : status) out += "  " + FormatStatus(member) + "\n";
    for (const MemberStatus& member : status) {
      if (member.role != "leader") continue;
      out += "leader " + member.name + " log tail:\n" +
             internal::TailOfFile(MemberLogPath(member.name), kLogTailLines);
    }
  }
  return out;
}

void PatroniCluster::WaitSteadyState(seconds timeout, const std::string& what) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + timeout;
  std::vector<MemberStatus> last;
  while (true) {
    for (Member& member : members_) {
      if (!member.patroni || !member.patroni->Running()) {
        throw std::runtime_error("PatroniCluster: " + what + ": Patroni of member " + member.name +
                                 " is not running; log tail:\n" +
                                 internal::TailOfFile(MemberLogPath(member.name), kLogTailLines));
      }
    }
    last = Status();
    int leaders = 0;
    int sync_standbys = 0;
    bool all_ready = true;
    for (const MemberStatus& member : last) {
      all_ready = all_ready && IsReady(member);
      leaders += member.role == "leader" ? 1 : 0;
      sync_standbys += member.role == "sync_standby" ? 1 : 0;
    }
    if (all_ready && leaders == 1 && (synchronous_ ? sync_standbys == 1 : sync_standbys == 0)) return;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(kPollInterval);
  }
  throw std::runtime_error("PatroniCluster: " + what + " timed out after " +
                           std::to_string(timeout.count()) + " s: " + DescribeUnready(last));
}

void PatroniCluster::WaitHealthy(seconds timeout) { WaitSteadyState(timeout, "WaitHealthy"); }

void PatroniCluster::SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes,
                                        seconds timeout) {
  Json patch;
  patch["synchronous_mode"] = synchronous;
  patch["synchronous_mode_strict"] = synchronous;
  patch["maximum_lag_on_failover"] = maximum_lag_on_failover_bytes > 0 ? maximum_lag_on_failover_bytes : 1048576;
  const std::string body = patch.dump();
  std::string errors;
  bool patched = false;
  for (const Member& member : members_) {
    const net::HttpResult result = net::HttpExchange(
        {.method = "PATCH", .host = options_.host, .port = member.rest_port, .target = "/config", .body = body},
        kRestTimeout);
    if (result.success()) {
      patched = true;
      break;
    }
    errors += " " + member.name + ": " + (result.error.empty() ? "HTTP " + std::to_string(result.status) + " " + result.body
                                                               : result.error) + ";";
  }
  if (!patched) throw std::runtime_error("PatroniCluster: PATCH /config " + body + " failed on every member:" + errors);
  synchronous_ = synchronous;
  // Applied when the leader has named its sync standby (or dropped it); the members need not all be
  // up (a killed one may still be rejoining).
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<MemberStatus> last;
  while (true) {
    last = Status();
    int leaders = 0;
    int sync_standbys = 0;
    for (const MemberStatus& member : last) {
      leaders += member.role == "leader" ? 1 : 0;
      sync_standbys += member.role == "sync_standby" ? 1 : 0;
    }
    if (leaders == 1 && (synchronous ? sync_standbys == 1 : sync_standbys == 0)) return;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(kPollInterval);
  }
  std::string members;
  for (const MemberStatus& member : last) members += "\n  " + FormatStatus(member);
  throw std::runtime_error(std::string("PatroniCluster: the leader did not switch to ") +
                           (synchronous ? "synchronous" : "asynchronous") + " replication within " +
                           std::to_string(timeout.count()) + " s:" + members);
}

std::string PatroniCluster::PrimaryName() {
  for (const Member& member : members_) {
    const net::HttpResult result =
        net::HttpExchange({.host = options_.host, .port = member.rest_port, .target = "/primary"}, kRestTimeout);
    if (result.status == 200) return member.name;
  }
  return "";
}


}  // namespace aftershock::cluster
