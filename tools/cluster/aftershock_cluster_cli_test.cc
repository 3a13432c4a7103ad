// The aftershock-cluster CLI as a user runs it: `up` daemonizes and returns at steady state,
// `status` reports it, `down` leaves nothing behind; a SIGKILLed supervisor leaves nothing either,
// also in the middle of the database's bring-up. The state folder is private (another user's or a
// symlink is refused, the socket is 0600), and a second `up` on a locked state refuses.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
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

  // With --state=state_ unless `args` name a state of their own.
  CliResult Run(std::vector<std::string> args, milliseconds timeout) {
    const bool own_state =
        std::any_of(args.begin(), args.end(), [](const std::string& a) { return a.rfind("--state=", 0) == 0; });
    if (!own_state) args.push_back("--state=" + state_);
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
  std::vector<pid_t> ClusterPids() { return ClusterPids(state_); }
  static std::vector<pid_t> ClusterPids(const std::string& state) {
    ClusterClient client = ClusterClient::Attach(state);
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

// The start time (field 22 of /proc/PID/stat, in clock ticks since boot) of a live process; 0 when
// it is gone. With the pid it names one process, whatever recycles the pid later.
unsigned long long StartTime(pid_t pid) {
  const std::string stat = ReadAll("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 3 && field == "Z") return 0;
    if (i == 22) return std::stoull(field);
  }
  return 0;
}

pid_t ParentOf(pid_t pid) {
  const std::string stat = ReadAll("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string state;
  pid_t ppid = 0;
  fields >> state >> ppid;
  return ppid;
}

// Adds every live descendant of the processes in `tree` (by parent pid), keyed by (pid, start time).
void AddDescendants(std::set<std::pair<pid_t, unsigned long long>>& tree, pid_t root) {
  std::set<pid_t> known = {root};
  for (const auto& [pid, start] : tree) known.insert(pid);
  bool grew = true;
  for (int round = 0; grew && round < 16; ++round) {
    grew = false;
    for (const fs::directory_entry& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      const pid_t pid = std::stoi(name);
      if (known.count(pid) || !known.count(ParentOf(pid))) continue;
      if (const unsigned long long start = StartTime(pid)) {
        tree.insert({pid, start});
        known.insert(pid);
        grew = true;
      }
    }
  }
}

TEST_F(ClusterCliTest, UpRefusesAStateFolderThatIsNotPrivate) {
  // Another user's folder (e.g. pre-created in /tmp to make a root supervisor write through it).
  if (::geteuid() == 0) {
    const passwd* nobody = ::getpwnam("nobody");
    ASSERT_NE(nobody, nullptr);
    const fs::path theirs = dir_ / "theirs";
    fs::create_directories(theirs);
    ASSERT_EQ(::chown(theirs.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
    const CliResult up = Run({"up", "--state=" + (theirs / "state").string()}, seconds(30));
    EXPECT_EQ(up.code, 1) << up.output;
    EXPECT_NE(up.output.find("refusing the cluster state folder " + theirs.string() + ": it is owned by uid " +
                             std::to_string(nobody->pw_uid)),
              std::string::npos)
        << up.output;
    EXPECT_FALSE(fs::exists(theirs / "state.log")) << "nothing may be created in it";
    EXPECT_FALSE(fs::exists(theirs / "state.lock")) << "nothing may be created in it";
  }
  // A symlink to a folder.
  const fs::path real = dir_ / "real";
  fs::create_directories(real);
  fs::create_directory_symlink(real, dir_ / "link");
  const CliResult linked = Run({"up", "--state=" + (dir_ / "link" / "state").string()}, seconds(30));
  EXPECT_EQ(linked.code, 1) << linked.output;
  EXPECT_NE(linked.output.find((dir_ / "link").string() + ": it is a symlink"), std::string::npos) << linked.output;
  EXPECT_TRUE(fs::is_empty(real));
  // A world-writable one.
  const fs::path open = dir_ / "open";
  fs::create_directories(open);
  ::chmod(open.c_str(), 0777);
  const CliResult writable = Run({"up", "--state=" + (open / "state").string()}, seconds(30));
  EXPECT_EQ(writable.code, 1) << writable.output;
  EXPECT_NE(writable.output.find("group- or world-writable (mode 0777"), std::string::npos) << writable.output;
  // A missing one is created private.
  const fs::path fresh = dir_ / "fresh" / "cluster";
  const CliResult status = Run({"status", "--state=" + (fresh / "state").string()}, seconds(30));
  EXPECT_EQ(status.code, 1) << "no cluster is up there";
}

TEST_F(ClusterCliTest, ASecondUpOnALockedStateRefusesNamingTheHolder) {
  // A stand-in for an `up` that is bringing a cluster up on this state: it holds the lock.
  const std::string lock_path = state_ + ".lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  const std::string pid = std::to_string(::getpid()) + "\n";
  ASSERT_EQ(::write(fd, pid.data(), pid.size()), static_cast<ssize_t>(pid.size()));
  const CliResult second = Run({"up", "--lease-minutes=1"}, seconds(30));
  EXPECT_EQ(second.code, 1) << second.output;
  EXPECT_NE(second.output.find("refusing: the state " + state_ + " is locked by pid " + std::to_string(::getpid())),
            std::string::npos)
      << second.output;
  EXPECT_FALSE(fs::exists(state_)) << "the refused `up` started a supervisor";
  ::close(fd);
}

// SIGKILL of the supervisor while the database is coming up (a postmaster is running, the other
// members are still being created): within 30 s no process it started is left - found by parent
// pid while it ran, by the postmasters' pid files, never by name - and its folders are gone.
TEST_F(ClusterCliTest, SigkillDuringDatabaseBringUpLeavesNothingWithin30Seconds) {
  process::ChildOptions options;
  options.program = AFTERSHOCK_CLUSTER_BINARY;
  options.args = {"up", "--foreground", "--lease-minutes=5", "--state=" + state_};
  options.log_path = (dir_ / "supervisor.log").string();
  process::ChildProcess supervisor = process::ChildProcess::Start(options);

  // The janitor, the scratch folder and the data dir, as the cluster prints them at once.
  const std::regex announced(R"(\[cluster\] janitor pid (-?\d+), scratch (\S+), database data dir (\S+))");
  std::smatch match;
  std::string log;
  std::set<std::pair<pid_t, unsigned long long>> tree;
  auto deadline = Clock::now() + seconds(60);
  while (!std::regex_search(log, match, announced)) {
    ASSERT_LT(Clock::now(), deadline) << "the supervisor never named its data dir:\n" << log;
    ASSERT_TRUE(supervisor.Running()) << log;
    std::this_thread::sleep_for(milliseconds(100));
    log = ReadAll(options.log_path);
  }
  const pid_t janitor = std::stoi(match[1]);
  const std::string scratch = match[2], data_dir = match[3];
  ASSERT_EQ(data_dir.rfind("/tmp/aftershock-db-", 0), 0u) << data_dir;

  // Until the first postmaster runs (and a second beyond it, into the standbys' creation).
  std::map<pid_t, unsigned long long> postmasters;
  const auto scan_postmasters = [&] {
    std::error_code ec;
    for (const char* member : {"a", "b", "c"}) {
      std::ifstream in(data_dir + "/" + member + "/data/postmaster.pid");
      pid_t pid = 0;
      if (in >> pid && pid > 0 && StartTime(pid) != 0) postmasters.emplace(pid, StartTime(pid));
    }
  };
  deadline = Clock::now() + seconds(120);
  while (postmasters.empty()) {
    ASSERT_LT(Clock::now(), deadline) << "no postmaster within 120 s:\n" << ReadAll(options.log_path);
    ASSERT_TRUE(supervisor.Running()) << ReadAll(options.log_path);
    AddDescendants(tree, supervisor.pid());
    scan_postmasters();
    std::this_thread::sleep_for(milliseconds(100));
  }
  for (int i = 0; i < 10; ++i) {
    AddDescendants(tree, supervisor.pid());
    scan_postmasters();
    std::this_thread::sleep_for(milliseconds(100));
  }
  ASSERT_FALSE(fs::exists(state_)) << "the cluster was already up: not a kill during bring-up";
  for (const auto& [pid, start] : postmasters) tree.insert({pid, start});
  if (janitor > 0) tree.insert({janitor, StartTime(janitor)});
  std::cerr << "[test] SIGKILL to supervisor " << supervisor.pid() << " during bring-up; " << tree.size()
            << " processes seen, postmasters";
  for (const auto& [pid, start] : postmasters) std::cerr << " " << pid;
  std::cerr << "\n";

  supervisor.Signal(SIGKILL);
  const auto killed_at = Clock::now();
  supervisor.Wait(milliseconds(10000));
  std::vector<pid_t> left;
  deadline = killed_at + seconds(30);
  do {
    left.clear();
    for (const auto& [pid, start] : tree) {
      if (start != 0 && StartTime(pid) == start) left.push_back(pid);
    }
    if (left.empty() && !fs::exists(data_dir) && !fs::exists(scratch)) break;
    std::this_thread::sleep_for(milliseconds(200));
  } while (Clock::now() < deadline);
  const double took = std::chrono::duration<double>(Clock::now() - killed_at).count();
  std::cerr << "[test] after the SIGKILL: " << left.size() << " processes left, data dir "
            << (fs::exists(data_dir) ? "still there" : "gone") << ", after " << took << " s\n";
  EXPECT_EQ(left, std::vector<pid_t>{}) << ReadAll(state_ + ".janitor.log");
  EXPECT_FALSE(fs::exists(data_dir)) << ReadAll(state_ + ".janitor.log");
  EXPECT_FALSE(fs::exists(scratch));
  EXPECT_NE(ReadAll(state_ + ".janitor.log").find("cleaning up"), std::string::npos);
  for (pid_t pid : left) ::kill(pid, SIGKILL);  // never leave them, whatever failed
}

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
  // Only this user may drive the cluster: the socket is 0600; the lock names the supervisor.
  struct stat socket_stat {};
  ASSERT_EQ(::lstat(state.socket.c_str(), &socket_stat), 0) << state.socket;
  EXPECT_TRUE(S_ISSOCK(socket_stat.st_mode));
  EXPECT_EQ(socket_stat.st_mode & 07777, 0600u);
  EXPECT_EQ(std::stoi(ReadAll(state_ + ".lock")), state.pid);
  struct stat log_stat {};
  ASSERT_EQ(::lstat((state_ + ".log").c_str(), &log_stat), 0);
  EXPECT_EQ(log_stat.st_mode & 07777, 0600u);
  ASSERT_EQ(::lstat((state_ + ".janitor.log").c_str(), &log_stat), 0);
  EXPECT_EQ(log_stat.st_mode & 07777, 0600u);
  // A second `up` on the same state: that supervisor is up, nothing else starts.
  const CliResult again = Run({"up"}, seconds(30));
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("already up (supervisor pid " + std::to_string(state.pid)), std::string::npos)
      << again.output;

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

// Two build trees' test runs at the same time: each has its own cluster state (ctest gives each tree
// <build>/aftershock-cluster/state), so two `up`s started together bring up two clusters that share
// no process and no port, and a fault or a `down` on one leaves the other untouched.
TEST_F(ClusterCliTest, TwoStatesRunSideBySideWithoutTouchingEachOther) {
  const std::string state_a = (dir_ / "tree-a" / "aftershock-cluster" / "state").string();
  const std::string state_b = (dir_ / "tree-b" / "aftershock-cluster" / "state").string();
  const auto down_both = [&] {  // whatever fails, neither cluster is left up
    for (const std::string& state : {state_a, state_b}) {
      if (fs::exists(state)) Run({"down", "--state=" + state}, seconds(150));
    }
  };
  struct AtExit {
    std::function<void()> run;
    ~AtExit() { run(); }
  } at_exit{down_both};
  std::vector<process::ChildProcess> ups;
  for (const std::string& state : {state_a, state_b}) {
    process::ChildOptions options;
    options.program = AFTERSHOCK_CLUSTER_BINARY;
    options.args = {"up", "--lease-minutes=10", "--store=memory", "--state=" + state};
    options.log_path = (dir_ / ("up-" + std::to_string(ups.size()) + ".log")).string();
    fs::create_directories(fs::path(state).parent_path());
    fs::permissions(fs::path(state).parent_path(), fs::perms::owner_all, fs::perm_options::replace);
    ups.push_back(process::ChildProcess::Start(options));
  }
  // Both `up`s end before anything is asserted: one that failed must not leave the other still
  // bringing its cluster up, with no state yet for down_both to find.
  std::vector<int> codes;
  for (process::ChildProcess& up : ups) codes.push_back(up.Wait(seconds(300)));
  for (std::size_t i = 0; i < codes.size(); ++i) {
    ASSERT_EQ(codes[i], 0) << ReadAll((dir_ / ("up-" + std::to_string(i) + ".log")).string());
  }
  const v1::ClusterStatus status_a = ClusterClient::Attach(state_a).Status();
  const v1::ClusterStatus status_b = ClusterClient::Attach(state_b).Status();
  ASSERT_TRUE(status_a.steady()) << status_a.not_steady_reason();
  ASSERT_TRUE(status_b.steady()) << status_b.not_steady_reason();
  EXPECT_NE(status_a.supervisor_pid(), status_b.supervisor_pid());
  std::set<std::string> addresses_a;
  for (const v1::Replica& r : status_a.replicas()) addresses_a.insert(r.address());
  for (const v1::Replica& r : status_b.replicas()) EXPECT_EQ(addresses_a.count(r.address()), 0u) << r.address();
  const std::vector<pid_t> pids_a = ClusterPids(state_a), pids_b = ClusterPids(state_b);
  for (pid_t pid : pids_b) EXPECT_EQ(std::count(pids_a.begin(), pids_a.end(), pid), 0) << pid;

  // A fault on A: B's replica of the same name keeps its process.
  const pid_t b_replica_a = status_b.replicas(0).pid();
  const CliResult kill = Run({"kill-replica", status_a.replicas(0).name(), "--state=" + state_a}, seconds(60));
  EXPECT_EQ(kill.code, 0) << kill.output;
  // `down` of A: every A process gone, every B process still there and B still steady.
  const CliResult down = Run({"down", "--state=" + state_a}, seconds(150));
  EXPECT_EQ(down.code, 0) << down.output;
  std::vector<pid_t> a_without_killed;
  for (pid_t pid : pids_a) {
    if (pid != status_a.replicas(0).pid()) a_without_killed.push_back(pid);
  }
  EXPECT_EQ(SurvivorsAfter(a_without_killed, seconds(30)), std::vector<pid_t>{});
  EXPECT_FALSE(fs::exists(state_a));
  EXPECT_TRUE(Alive(b_replica_a)) << "a fault on the other tree's cluster reached this one";
  for (pid_t pid : pids_b) EXPECT_TRUE(Alive(pid)) << pid << " of the other cluster died with down";
  const v1::ClusterStatus after = ClusterClient::Attach(state_b).Status();
  EXPECT_TRUE(after.steady()) << after.not_steady_reason();
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
