// Starts the real embedded database cluster, kills primaries and measures write unavailability.
// Label `cluster`: takes one to three minutes. AFTERSHOCK_DB_FAILOVER_ROUNDS (default 2) sets how
// many primary kills to run; AFTERSHOCK_DB_LOG_DIR, when set, receives the cluster's logs.
#include "framework/cluster/patroni_cluster.h"

#include <libpq-fe.h>
#include <poll.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "framework/cluster/internal/pg_processes.h"

namespace aftershock::cluster {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Runs one statement with a client-side deadline and returns its first value, or nullopt with the
// error. No statement_timeout on purpose: cancelling a commit that waits for the synchronous
// standby makes PostgreSQL report success for a commit that is only local; giving up on the
// connection instead never reports success.
std::optional<std::string> QueryOnce(const std::string& conninfo, const std::string& sql,
                                     milliseconds deadline, std::string* error) {
  const auto give_up = Clock::now() + deadline;
  PGconn* conn = PQconnectdb(conninfo.c_str());
  std::optional<std::string> value;
  if (PQstatus(conn) != CONNECTION_OK) {
    *error = PQerrorMessage(conn);
    PQfinish(conn);
    return std::nullopt;
  }
  if (PQsendQuery(conn, sql.c_str()) != 1) {
    *error = PQerrorMessage(conn);
    PQfinish(conn);
    return std::nullopt;
  }
  bool failed = false;
  while (PQisBusy(conn)) {
    const auto left = std::chrono::duration_cast<milliseconds>(give_up - Clock::now()).count();
    if (left <= 0) {
      *error = "client deadline passed";
      PQfinish(conn);
      return std::nullopt;
    }
    pollfd fd{PQsocket(conn), POLLIN, 0};
    ::poll(&fd, 1, static_cast<int>(left));
    if (PQconsumeInput(conn) != 1) {
      *error = PQerrorMessage(conn);
      PQfinish(conn);
      return std::nullopt;
    }
  }
  while (PGresult* result = PQgetResult(conn)) {
    const ExecStatusType status = PQresultStatus(result);
    if (status == PGRES_TUPLES_OK && PQntuples(result) > 0 && !value) {
      value = PQgetvalue(result, 0, 0);
    } else if (status == PGRES_COMMAND_OK && !value) {
      value = PQcmdStatus(result);
    } else if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      *error = PQresultErrorMessage(result);
      failed = true;
    }
    PQclear(result);
  }
  PQfinish(conn);
  if (failed) return std::nullopt;
  return value;
}

std::string Query(const std::string& conninfo, const std::string& sql) {
  std::string error;
  std::optional<std::string> value = QueryOnce(conninfo, sql, seconds(10), &error);
  EXPECT_TRUE(value.has_value()) << sql << ": " << error;
  return value.value_or("<error: " + error + ">");
}

int FailoverRounds() {
  const char* rounds = std::getenv("AFTERSHOCK_DB_FAILOVER_ROUNDS");
  if (rounds == nullptr) return 2;
  const int value = std::atoi(rounds);
  return value < 1 ? 1 : (value > 5 ? 5 : value);
}

TEST(PatroniClusterTest, FailoverKeepsAcknowledgedWritesAndStopLeavesNothing) {
  PatroniClusterOptions options;
  options.app_password = "app-secret";
  const auto bring_up_start = Clock::now();
  std::unique_ptr<PatroniCluster> cluster = PatroniCluster::Start(options);
  const double bring_up_seconds = SecondsSince(bring_up_start);
  std::cout << "[db_cluster] bring-up to steady state: " << bring_up_seconds << " s\n";
  RecordProperty("bring_up_seconds", std::to_string(bring_up_seconds));

  // Steady state: one leader, one sync standby, one async replica; both replicas streaming.
  const std::vector<MemberStatus> status = cluster->Status();
  ASSERT_EQ(status.size(), 3u);
  int leaders = 0, sync_standbys = 0, replicas = 0, streaming = 0;
  for (const MemberStatus& member : status) {
    EXPECT_EQ(member.state, "running") << member.name;
    EXPECT_GT(member.patroni_pid, 0) << member.name;
    EXPECT_TRUE(member.postmaster_pid.has_value()) << member.name;
    EXPECT_EQ(member.timeline, 1) << member.name;
    leaders += member.role == "leader";
    sync_standbys += member.role == "sync_standby";
    replicas += member.role == "replica";
    streaming += member.streaming;
  }
  EXPECT_EQ(leaders, 1);
  EXPECT_EQ(sync_standbys, 1);
  EXPECT_EQ(replicas, 1);
  EXPECT_EQ(streaming, 2);
  EXPECT_TRUE(cluster->Healthy());
  EXPECT_EQ(cluster->PgPorts().size(), 3u);
  EXPECT_GT(cluster->EtcdPort(), 0);

  const std::string conninfo = cluster->ConnectionString();
  EXPECT_NE(conninfo.find("target_session_attrs=read-write"), std::string::npos);
  // The application role is a non-superuser that owns its database.
  EXPECT_EQ(Query(conninfo, "SELECT current_user || '/' || current_database()"),
            "aftershock/aftershock");
  EXPECT_EQ(Query(conninfo, "SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user"),
            "false");
  Query(conninfo, "CREATE TABLE promises (id int PRIMARY KEY, note text NOT NULL)");
  EXPECT_EQ(Query(conninfo, "INSERT INTO promises VALUES (0, 'before any kill')"), "INSERT 0 1");

  const int rounds = FailoverRounds();
  for (int round = 1; round <= rounds; ++round) {
    const std::string primary_before = cluster->PrimaryName();
    ASSERT_FALSE(primary_before.empty());
    const auto kill_time = Clock::now();
    const std::string killed = cluster->KillPrimary();
    EXPECT_EQ(killed, primary_before);

    // Retry a write until it succeeds (bounded). ON CONFLICT: an attempt the client abandoned
    // may still commit later, and the retry must not fail on its duplicate.
    const std::string insert = "INSERT INTO promises VALUES (" + std::to_string(round) +
                               ", 'after kill " + std::to_string(round) +
                               "') ON CONFLICT (id) DO NOTHING";
    std::optional<double> unavailable_seconds;
    std::string last_error;
    for (int attempt = 0; attempt < 400 && SecondsSince(kill_time) < 90; ++attempt) {
      if (QueryOnce(conninfo, insert, seconds(3), &last_error)) {
        unavailable_seconds = SecondsSince(kill_time);
        break;
      }
      std::this_thread::sleep_for(milliseconds(100));
    }
    ASSERT_TRUE(unavailable_seconds.has_value()) << "no write succeeded within 90 s: " << last_error;
    std::cout << "[db_cluster] round " << round << ": killed primary " << killed
              << ", write unavailability " << *unavailable_seconds << " s\n";
    RecordProperty("failover_write_unavailable_seconds_" + std::to_string(round),
                   std::to_string(*unavailable_seconds));

    const std::string primary_after = cluster->PrimaryName();
    EXPECT_FALSE(primary_after.empty());
    EXPECT_NE(primary_after, killed);
    EXPECT_FALSE(cluster->Healthy());  // Two members left until the killed one rejoins.

    const auto rejoin_start = Clock::now();
    cluster->RestartMember(killed);
    cluster->WaitHealthy(seconds(120));
    const double rejoin_seconds = SecondsSince(rejoin_start);
    std::cout << "[db_cluster] round " << round << ": " << killed << " rejoined, healthy after "
              << rejoin_seconds << " s\n";
    RecordProperty("rejoin_seconds_" + std::to_string(round), std::to_string(rejoin_seconds));
    EXPECT_EQ(cluster->PrimaryName(), primary_after);

    // Synchronous replication: what was acknowledged before each kill survived the failover.
    EXPECT_EQ(Query(conninfo, "SELECT note FROM promises WHERE id = 0"), "before any kill");
    EXPECT_EQ(Query(conninfo, "SELECT count(*) FROM promises"), std::to_string(round + 1));
    int timeline_max = 0;
    for (const MemberStatus& member : cluster->Status()) {
      timeline_max = std::max(timeline_max, member.timeline);
    }
    EXPECT_EQ(timeline_max, 1 + round);
  }

  if (const char* log_dir = std::getenv("AFTERSHOCK_DB_LOG_DIR")) {
    cluster->CopyLogsTo(log_dir);
    EXPECT_TRUE(std::filesystem::exists(std::string(log_dir) + "/a.log"));
  }
  const std::string data_dir = cluster->DataDir();
  const std::vector<pid_t> pids = cluster->KnownPids();
  EXPECT_GE(pids.size(), 7u);  // etcd, 3+rounds Patroni, at least 3 postmasters.
  EXPECT_TRUE(std::filesystem::exists(data_dir));
  cluster->Stop();
  for (pid_t pid : pids) EXPECT_FALSE(internal::ProcessAlive(pid)) << "pid " << pid << " survived";
  EXPECT_FALSE(std::filesystem::exists(data_dir));
  cluster.reset();
}

TEST(PatroniClusterTest, RejectsANonEmptyDataDirAndLeavesItAlone) {
  const std::string dir = "/tmp/aftershock-db-cluster-test-nonempty";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/keep") << "precious";
  PatroniClusterOptions options;
  options.data_dir = dir;
  EXPECT_THROW(PatroniCluster::Start(options), std::runtime_error);
  EXPECT_TRUE(std::filesystem::exists(dir + "/keep"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace aftershock::cluster
