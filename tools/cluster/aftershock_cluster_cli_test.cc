// The aftershock-cluster CLI as a user runs it: `up` daemonizes and returns at steady state,
// `status` reports it, `down` leaves nothing behind; a SIGKILLed supervisor leaves nothing either.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "framework/cluster/control/cluster_client.h"
#include "framework/cluster/control/internal/state_file.h"
#include "framework/process/child_process.h"

#ifndef AFTERSHOCK_CLUSTER_BINARY
#error "AFTERSHOCK_CLUSTER_BINARY must name the built aftershock-cluster (set by CMake)"
#endif

namespace aftershock::cluster {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

struct CliResult {
  int code = -1;
  std::string output;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Alive and not a zombie.
bool Alive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  const std::string stat = ReadAll("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

class ClusterCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cluster-cli-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    state_ = (dir_ / "state").string();
  }
  void TearDown() override {
    // Never leave a cluster behind, whatever failed.
    if (fs::exists(state_)) Run({"down"}, seconds(120));
    fs::remove_all(dir_);
  }

  CliResult Run(std::vector<std::string> args, milliseconds timeout) {
    args.push_back("--state=" + state_);
    const std::string log = (dir_ / ("cli-" + std::to_string(++runs_) + ".log")).string();
    process::ChildOptions options;
    options.program = AFTERSHOCK_CLUSTER_BINARY;
    options.args = args;
    options.log_path = log;
    process::ChildProcess child = process::ChildProcess::Start(options);
    CliResult result;
    try {
      result.code = child.Wait(timeout);
    } catch (const std::exception& e) {
      child.Stop(seconds(5));
      result.code = -1;
    }
    result.output = ReadAll(log);
    return result;
  }

  // Every PID the cluster reports: supervisor, replicas, Patroni, postmasters.
  std::vector<pid_t> ClusterPids() {
    ClusterClient client = ClusterClient::Attach(state_);
    const v1::ClusterStatus status = client.Status();
    std::vector<pid_t> pids = {client.state().pid, static_cast<pid_t>(status.supervisor_pid())};
    for (const v1::Replica& r : status.replicas()) pids.push_back(r.pid());
    for (const v1::DatabaseMember& m : status.members()) {
      pids.push_back(m.patroni_pid());
      pids.push_back(m.postmaster_pid());
    }
    return pids;
  }

  // Polls until none of `pids` is alive; returns the survivors.
  std::vector<pid_t> SurvivorsAfter(const std::vector<pid_t>& pids, milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    std::vector<pid_t> alive;
    do {
      alive.clear();
      for (pid_t pid : pids) {
        if (Alive(pid)) alive.push_back(pid);
      }
      if (alive.empty()) break;
      std::this_thread::sleep_for(milliseconds(200));
    } while (Clock::now() < deadline);
    return alive;
  }

  fs::path dir_;
  std::string state_;
  int runs_ = 0;
};

TEST_F(ClusterCliTest, BadUsageExitsWithTwo) {
  EXPECT_EQ(Run({"explode"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"status", "--colour=yes"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"drain"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"partition", "--seconds=x"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"replication", "maybe"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"replication", "sync", "--max-lag-bytes=5"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"replication-lag", "--latency-ms=100"}, seconds(10)).code, 2);
  // Fault lease flags: a hold needs a unit and a fault that outlives the CLI; defects need a defect.
  EXPECT_EQ(Run({"drain", "node-b", "--hold=5"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"drain", "node-b", "--hold=48h"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"replication", "sync", "--hold=1m"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"partition", "--seconds=3", "--hold=1m"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"defects"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"defects", "b", "--internal-rate=2"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"defects", "--clear", "--internal-rate=0.5"}, seconds(10)).code, 2);
  const CliResult bad_hold = Run({"defects", "b", "--internal-rate=0.5", "--hold=soon"}, seconds(10));
  EXPECT_NE(bad_hold.output.find("--hold needs a duration from 1s to 24h with a unit"), std::string::npos)
      << bad_hold.output;
  const CliResult bad_mode = Run({"replication", "quorum"}, seconds(10));
  EXPECT_NE(bad_mode.output.find("replication takes sync or async, not 'quorum'"), std::string::npos)
      << bad_mode.output;
  // The replica count: one letter each, a..z.
  const CliResult none = Run({"up", "--replicas=0"}, seconds(10));
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.output.find("--replicas needs a whole number from 1 to 26"), std::string::npos) << none.output;
  EXPECT_EQ(Run({"up", "--replicas=27"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"up", "--replicas=three"}, seconds(10)).code, 2);
  EXPECT_EQ(Run({"up", "--store=sqlite"}, seconds(10)).code, 2);
  const CliResult usage = Run({"up", "--lease-minutes=0"}, seconds(10));
  EXPECT_EQ(usage.code, 2);
  EXPECT_NE(usage.output.find("usage: aftershock-cluster"), std::string::npos) << usage.output;
  EXPECT_EQ(Run({"status"}, seconds(10)).code, 1) << "no cluster is up";
}

TEST_F(ClusterCliTest, UpStatusDownLeavesNothingRunning) {
  const CliResult up = Run({"up", "--lease-minutes=10"}, seconds(300));
  ASSERT_EQ(up.code, 0) << up.output;
  EXPECT_NE(up.output.find("steady in"), std::string::npos) << up.output;
  std::cerr << "[test] " << up.output;
  ASSERT_TRUE(fs::exists(state_));
  const internal::ClusterStateFile state = internal::ReadStateFile(state_);
  EXPECT_TRUE(Alive(state.pid));
  EXPECT_EQ(state.replicas.size(), 3u);
  EXPECT_TRUE(fs::exists(state.data_dir)) << state.data_dir;

  const CliResult status = Run({"status"}, seconds(60));
  EXPECT_EQ(status.code, 0) << status.output;
  EXPECT_NE(status.output.find("steady: yes"), std::string::npos) << status.output;
  EXPECT_NE(status.output.find("replica b  node-b zone-b"), std::string::npos) << status.output;

  const std::vector<pid_t> pids = ClusterPids();
  int live = 0;
  for (pid_t pid : pids) live += Alive(pid) ? 1 : 0;
  EXPECT_GE(live, 1 + 3 + 3 + 3) << "supervisor, 3 replicas, 3 Patroni, 3 postmasters";

  const CliResult down = Run({"down"}, seconds(150));
  EXPECT_EQ(down.code, 0) << down.output;
  EXPECT_EQ(SurvivorsAfter(pids, seconds(30)), std::vector<pid_t>{});
  EXPECT_FALSE(fs::exists(state_));
  EXPECT_FALSE(fs::exists(state.socket));
  EXPECT_FALSE(fs::exists(state.data_dir));
  EXPECT_FALSE(fs::exists(state.work_dir));
  EXPECT_EQ(Run({"status"}, seconds(10)).code, 1);
}

// With five replicas (a..e on node-a..node-e), which also shows the count is a setting.
TEST_F(ClusterCliTest, KilledSupervisorOfFiveReplicasLeavesNothingBehind) {
  const CliResult up = Run({"up", "--lease-minutes=10", "--replicas=5"}, seconds(300));
  ASSERT_EQ(up.code, 0) << up.output;
  const internal::ClusterStateFile state = internal::ReadStateFile(state_);
  EXPECT_EQ(state.replicas.size(), 5u);
  const v1::ClusterStatus status = ClusterClient::Attach(state_).Status();
  ASSERT_EQ(status.replicas_size(), 5);
  EXPECT_TRUE(status.steady()) << status.not_steady_reason();
  EXPECT_EQ(status.replicas(4).name(), "e");
  EXPECT_EQ(status.replicas(4).node(), "node-e");
  EXPECT_EQ(status.replicas(4).zone(), "zone-e");
  for (const v1::Replica& r : status.replicas()) EXPECT_TRUE(r.ready()) << r.name();
  const CliResult bad_node = Run({"drain", "node-f"}, seconds(30));
  EXPECT_EQ(bad_node.code, 1);
  EXPECT_NE(bad_node.output.find("node-a, node-b, node-c, node-d or node-e"), std::string::npos) << bad_node.output;
  const std::vector<pid_t> pids = ClusterPids();
  ASSERT_EQ(::kill(state.pid, SIGKILL), 0);
  // die_with_parent takes replicas, Patroni and etcd; the janitor takes the detached postmasters.
  EXPECT_EQ(SurvivorsAfter(pids, seconds(30)), std::vector<pid_t>{});
  const auto deadline = Clock::now() + seconds(30);
  while ((fs::exists(state_) || fs::exists(state.data_dir)) && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(200));
  }
  EXPECT_FALSE(fs::exists(state_));
  EXPECT_FALSE(fs::exists(state.data_dir));
  EXPECT_FALSE(fs::exists(state.work_dir));
}

}  // namespace
}  // namespace aftershock::cluster
