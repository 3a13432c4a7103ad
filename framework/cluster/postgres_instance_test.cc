#include "framework/cluster/postgres_instance.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

namespace aftershock::cluster {
namespace {

// One statement's first value ("" on error, with the error in *error).
std::string QueryValue(const std::string& conninfo, const std::string& sql, std::string* error) {
  PGconn* conn = PQconnectdb((conninfo + " connect_timeout=5").c_str());
  std::string value;
  if (PQstatus(conn) != CONNECTION_OK) {
    *error = PQerrorMessage(conn);
  } else {
    PGresult* r = PQexec(conn, sql.c_str());
    const ExecStatusType status = PQresultStatus(r);
    if (status == PGRES_TUPLES_OK && PQntuples(r) > 0) {
      value = PQgetvalue(r, 0, 0);
    } else if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      *error = PQresultErrorMessage(r);
    }
    PQclear(r);
  }
  PQfinish(conn);
  return value;
}

bool ProcessExists(pid_t pid) { return ::kill(pid, 0) == 0; }

std::string StartError(PostgresInstanceOptions options) {
  try {
    PostgresInstance::Start(std::move(options));
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(PostgresInstanceTest, ServesItsDatabaseAndLeavesNothingBehind) {
  std::string data_dir;
  pid_t pid = -1;
  {
    PostgresInstance pg = PostgresInstance::Start({.database = "payments_test", .max_connections = 12});
    data_dir = pg.data_dir();
    pid = pg.pid();
    EXPECT_TRUE(pg.Running());
    EXPECT_GT(pg.port(), 0);
    EXPECT_EQ(pg.conninfo(), "host=127.0.0.1 port=" + std::to_string(pg.port()) + " dbname=payments_test user=postgres");
    EXPECT_GT(pg.timings().initdb_seconds, 0);
    EXPECT_GT(pg.timings().start_seconds, 0);
    std::printf("initdb %.2f s, start + CREATE DATABASE %.2f s\n", pg.timings().initdb_seconds,
                pg.timings().start_seconds);
    std::string error;
    EXPECT_EQ(QueryValue(pg.conninfo(), "SELECT current_database()", &error), "payments_test") << error;
    EXPECT_EQ(QueryValue(pg.conninfo(), "SHOW max_connections", &error), "12") << error;
    EXPECT_EQ(QueryValue(pg.conninfo(), "SHOW fsync", &error), "on") << error;
    EXPECT_EQ(QueryValue(pg.conninfo(), "CREATE TABLE t (k text PRIMARY KEY)", &error), "") << error;
    EXPECT_EQ(QueryValue(pg.conninfo(), "INSERT INTO t VALUES ('a') RETURNING k", &error), "a") << error;
    if (::geteuid() == 0) {
      struct stat st {};
      ASSERT_EQ(::stat(data_dir.c_str(), &st), 0);
      EXPECT_NE(st.st_uid, 0u) << "the data dir belongs to the postgres user, not root";
    }
    // Moving keeps one owner of the server.
    PostgresInstance moved = std::move(pg);
    EXPECT_EQ(moved.pid(), pid);
    EXPECT_EQ(pg.pid(), -1);
    const auto stop_start = std::chrono::steady_clock::now();
    EXPECT_EQ(moved.Stop(), 0) << "fast shutdown exits cleanly";
    std::printf("fast shutdown %.2f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - stop_start).count());
    EXPECT_EQ(moved.Stop(), 0) << "idempotent";
    EXPECT_FALSE(ProcessExists(pid));
  }
  EXPECT_FALSE(std::filesystem::exists(data_dir));
}

TEST(PostgresInstanceTest, AStuckServerIsKilledAfterTheStopBound) {
  PostgresInstance pg = PostgresInstance::Start({.stop_timeout = std::chrono::milliseconds(300)});
  const pid_t pid = pg.pid();
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);  // ignores the fast-shutdown request
  EXPECT_EQ(pg.Stop(), 128 + SIGKILL);
  EXPECT_FALSE(ProcessExists(pid));
}

TEST(PostgresInstanceTest, BadOptionsAreRefusedByName) {
  EXPECT_EQ(StartError({.database = "bad-Name"}),
            "PostgresInstance: database 'bad-Name': only a-z, 0-9 and _ are allowed");
  EXPECT_EQ(StartError({.database = "9x"}), "PostgresInstance: database '9x': must start with a-z or _");
  EXPECT_EQ(StartError({.max_connections = 2}), "PostgresInstance: max_connections 2 must be in 5..10000");
  EXPECT_EQ(StartError({.settings = {{"port", "5432"}}}),
            "PostgresInstance: setting 'port' is chosen by PostgresInstance");
  EXPECT_NE(StartError({.bin_dir = "/nonexistent/bin"}).find("/nonexistent/bin/initdb"), std::string::npos);
}

TEST(PostgresInstanceTest, AServerThatCannotStartSaysWhyWithItsLog) {
  const std::string error = StartError({.settings = {{"shared_buffers", "lots"}}});
  EXPECT_NE(error.find("PostgresInstance: postgres exited"), std::string::npos) << error;
  EXPECT_NE(error.find("log tail"), std::string::npos) << error;
  EXPECT_NE(error.find("shared_buffers"), std::string::npos) << error;
}

}  // namespace
}  // namespace aftershock::cluster
