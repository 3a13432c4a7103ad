#include "framework/cluster/local/internal/janitor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace aftershock::cluster::internal {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

bool Alive(pid_t pid) { return ::kill(pid, 0) == 0; }

// A fake "postmaster": a sleeping process whose command line names the data dir.
process::ChildProcess FakePostmaster(const std::string& data_dir) {
  process::ChildOptions options;
  options.program = "/bin/sh";
  options.args = {"-c", "exec sleep 60", "postgres -D " + data_dir};
  options.die_with_parent = true;
  return process::ChildProcess::Start(options);
}

TEST(JanitorTest, AfterTheSupervisorDiesItKillsLeftoverPostmastersAndRemovesTheData) {
  const fs::path root = fs::temp_directory_path() / ("janitor-test-" + std::to_string(::getpid()));
  const std::string data = (root / "db").string();
  const std::string work = (root / "work").string();
  const std::string state = (root / "state").string();
  fs::create_directories(data + "/a/data");
  fs::create_directories(work);

  // The "supervisor" the janitor watches: a short-lived child.
  process::ChildOptions sup_options;
  sup_options.program = "/bin/sleep";
  sup_options.args = {"1"};
  process::ChildProcess supervisor = process::ChildProcess::Start(sup_options);
  { std::ofstream(state) << "socket=" << (root / "sock").string() << "\npid=" << supervisor.pid() << "\n"; }
  { std::ofstream(root / "sock") << "x"; }

  // A postmaster stand-in whose command line names the data dir (sh stays, unlike `exec sleep`).
  process::ChildOptions pm_options;
  pm_options.program = "/bin/sh";
  pm_options.args = {"-c", "sleep 60; :", "postgres -D " + data + "/a/data"};
  process::ChildProcess postmaster = process::ChildProcess::Start(pm_options);
  { std::ofstream(data + "/a/data/postmaster.pid") << postmaster.pid() << "\n" << data << "/a/data\n"; }

  process::ChildProcess janitor =
      StartJanitor(supervisor.pid(), data, work, state, (root / "janitor.log").string());
  supervisor.Wait(milliseconds(5000));  // reaped: its PID is gone

  const int code = janitor.Wait(milliseconds(20000));
  EXPECT_EQ(code, 0);
  EXPECT_TRUE(postmaster.TryWait().has_value() || !postmaster.Running());
  EXPECT_FALSE(fs::exists(data));
  EXPECT_FALSE(fs::exists(work));
  EXPECT_FALSE(fs::exists(state));
  EXPECT_FALSE(fs::exists(root / "sock"));
  fs::remove_all(root);
}

TEST(JanitorTest, LeavesAStateFileOfAnotherSupervisorAlone) {
  const fs::path root = fs::temp_directory_path() / ("janitor-test2-" + std::to_string(::getpid()));
  fs::create_directories(root);
  const std::string state = (root / "state").string();
  { std::ofstream(state) << "socket=/nonexistent\npid=1\n"; }
  process::ChildOptions sup_options;
  sup_options.program = "/bin/true";
  process::ChildProcess supervisor = process::ChildProcess::Start(sup_options);
  supervisor.Wait(milliseconds(5000));
  process::ChildProcess janitor = StartJanitor(supervisor.pid(), "", "", state, (root / "janitor.log").string());
  EXPECT_EQ(janitor.Wait(milliseconds(20000)), 0);
  EXPECT_TRUE(fs::exists(state));
  fs::remove_all(root);
}

TEST(JanitorTest, KillLeftoverPostgresOnlyKillsProcessesNamingTheDataDir) {
  process::ChildProcess named = FakePostmaster("/tmp/some-data-dir-xyz");
  process::ChildOptions other_options;
  other_options.program = "/bin/sleep";
  other_options.args = {"60"};
  process::ChildProcess other = process::ChildProcess::Start(other_options);
  // `exec sleep` replaced the shell: the cmdline no longer names the dir, so it must survive too.
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(KillLeftoverPostgres({other.pid()}, "/tmp/some-data-dir-xyz"), 0);
  EXPECT_TRUE(Alive(other.pid()));

  process::ChildOptions pm_options;
  pm_options.program = "/bin/sh";
  pm_options.args = {"-c", "sleep 60; :", "postgres -D /tmp/some-data-dir-xyz"};
  process::ChildProcess postmaster = process::ChildProcess::Start(pm_options);
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(KillLeftoverPostgres({postmaster.pid(), other.pid()}, "/tmp/some-data-dir-xyz"), 1);
  EXPECT_EQ(postmaster.Wait(milliseconds(5000)), 128 + SIGKILL);
  EXPECT_TRUE(Alive(other.pid()));
  other.Stop(milliseconds(1000));
  named.Stop(milliseconds(1000));
}

}  // namespace
}  // namespace aftershock::cluster::internal
