#include "framework/cluster/local/internal/janitor.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

namespace aftershock::cluster::internal {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Alive and not a zombie (an orphaned janitor is reaped by init, maybe late).
bool Alive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  const std::string stat = ReadAll("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

bool GoneWithin(pid_t pid, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Alive(pid)) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(100));
  }
  return true;
}

// A stand-in for a cluster process: a shell whose command line names `name` (its $0), sleeping.
process::ChildProcess Sleeper(const std::string& name, const std::string& script = "sleep 60; :") {
  process::ChildOptions options;
  options.program = "/bin/sh";
  options.args = {"-c", script, name};
  options.die_with_parent = true;
  return process::ChildProcess::Start(options);
}

// A forked "supervisor" starts a janitor, lets `record` tell it what to clean, and is SIGKILLed.
// Returns the janitor's pid (-1 when the child failed).
pid_t CrashAfter(const std::function<void(Janitor&)>& record, const std::string& log) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(ready[0]);
    try {
      std::unique_ptr<Janitor> janitor = Janitor::Start(log);
      record(*janitor);
      const pid_t pid = janitor->pid();
      if (::write(ready[1], &pid, sizeof(pid)) != sizeof(pid)) ::_exit(3);
      janitor.release();  // never dismissed: this process dies by SIGKILL
    } catch (...) {
      ::_exit(4);
    }
    while (true) ::pause();
  }
  ::close(ready[1]);
  pid_t janitor = -1;
  pollfd p{ready[0], POLLIN, 0};
  if (::poll(&p, 1, 20000) == 1 && ::read(ready[0], &janitor, sizeof(janitor)) != sizeof(janitor)) janitor = -1;
  ::close(ready[0]);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  return janitor;
}

class JanitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("janitor-test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    log_ = (root_ / "janitor.log").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_;
  std::string log_;
};

TEST_F(JanitorTest, AfterTheSupervisorIsKilledItStopsWhatItStartedAndRemovesWhatItCreated) {
  const std::string data = (root_ / "db").string();
  const std::string work = (root_ / "work").string();
  const std::string state = (root_ / "state").string();
  const std::string other_state = (root_ / "other-state").string();
  fs::create_directories(data + "/a/data");
  fs::create_directories(work);
  { std::ofstream(state) << "pid=1\n"; }
  { std::ofstream(other_state) << "not ours\n"; }

  // A postmaster stand-in (its pid file under the data dir), and an orphan of a killed Patroni in
  // a recorded group (an initdb naming the data dir) next to a process of that group that does not
  // name it (the group id could have been recycled): only the first must die.
  process::ChildProcess postmaster = Sleeper("postgres -D " + data + "/a/data");
  { std::ofstream(data + "/a/data/postmaster.pid") << postmaster.pid() << "\n" << data << "/a/data\n"; }
  process::ChildProcess group = Sleeper("initdb --pgdata=" + data + "/b/data", "sleep 60 & sleep 60; :");
  std::this_thread::sleep_for(milliseconds(300));  // the group's `sleep`s exist

  const pid_t janitor = CrashAfter(
      [&](Janitor& j) {
        j.KillGroupAfterCrash(group.pid(), data);
        j.StopPostmastersAfterCrash(data);
        j.RemoveAfterCrash(data);
        j.RemoveAfterCrash(work);
        j.RemoveAfterCrash(state);
        j.RemoveAfterCrash(other_state);
      },
      log_);
  ASSERT_GT(janitor, 0);
  // Another process puts a different file where a recorded one was: it is not ours any more. (Made
  // first and renamed over it, so it cannot get the freed inode number of the one it replaces.)
  { std::ofstream(root_ / "replacement") << "someone else's\n"; }
  fs::rename(root_ / "replacement", other_state);

  ASSERT_TRUE(GoneWithin(janitor, milliseconds(30000))) << ReadAll(log_);
  const std::string log = ReadAll(log_);
  EXPECT_NE(log.find("cleaning up"), std::string::npos) << log;
  EXPECT_NE(log.find("janitor: done"), std::string::npos) << log;
  EXPECT_TRUE(postmaster.TryWait().has_value()) << log;
  EXPECT_TRUE(group.TryWait().has_value()) << "the group's process naming the data dir survived\n" << log;
  EXPECT_FALSE(fs::exists(data));
  EXPECT_FALSE(fs::exists(work));
  EXPECT_FALSE(fs::exists(state));
  EXPECT_EQ(ReadAll(other_state), "someone else's\n") << log;
  EXPECT_NE(log.find("leaving " + other_state + " alone"), std::string::npos) << log;
  EXPECT_TRUE(fs::exists(log_));
}

TEST_F(JanitorTest, AGroupProcessThatDoesNotNameTheDataDirSurvives) {
  const std::string data = (root_ / "db").string();
  fs::create_directories(data);
  process::ChildProcess unrelated = Sleeper("some-other-program");
  const pid_t janitor = CrashAfter([&](Janitor& j) { j.KillGroupAfterCrash(unrelated.pid(), data); }, log_);
  ASSERT_GT(janitor, 0);
  ASSERT_TRUE(GoneWithin(janitor, milliseconds(30000))) << ReadAll(log_);
  EXPECT_FALSE(unrelated.TryWait().has_value()) << ReadAll(log_);
  EXPECT_TRUE(fs::exists(data)) << "not recorded for removal";
  unrelated.Stop(milliseconds(1000));
}

TEST_F(JanitorTest, ADismissedJanitorTouchesNothing) {
  const std::string data = (root_ / "db").string();
  fs::create_directories(data);
  std::unique_ptr<Janitor> janitor = Janitor::Start(log_);
  janitor->RemoveAfterCrash(data);
  const pid_t pid = janitor->pid();
  janitor->Dismiss(milliseconds(5000));
  EXPECT_FALSE(Alive(pid));
  EXPECT_TRUE(fs::exists(data));
  EXPECT_NE(ReadAll(log_).find("dismissed"), std::string::npos);
  EXPECT_THROW(janitor->RemoveAfterCrash(data), std::runtime_error);
}

TEST_F(JanitorTest, RefusesWhatItCannotRecord) {
  std::unique_ptr<Janitor> janitor = Janitor::Start(log_);
  EXPECT_THROW(janitor->RemoveAfterCrash("relative/path"), std::invalid_argument);
  EXPECT_THROW(janitor->RemoveAfterCrash((root_ / "a\nb").string()), std::invalid_argument);
  EXPECT_THROW(janitor->RemoveAfterCrash((root_ / "missing").string()), std::runtime_error);
  EXPECT_THROW(janitor->KillGroupAfterCrash(1, root_.string()), std::invalid_argument);
}

TEST(KillLeftoverPostgresTest, OnlyKillsProcessesNamingTheDataDir) {
  process::ChildOptions other_options;
  other_options.program = "/bin/sleep";
  other_options.args = {"60"};
  process::ChildProcess other = process::ChildProcess::Start(other_options);
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(KillLeftoverPostgres({other.pid()}, "/tmp/some-data-dir-xyz"), 0);
  EXPECT_TRUE(Alive(other.pid()));

  process::ChildProcess postmaster = Sleeper("postgres -D /tmp/some-data-dir-xyz");
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(KillLeftoverPostgres({postmaster.pid(), other.pid()}, "/tmp/some-data-dir-xyz"), 1);
  EXPECT_EQ(postmaster.Wait(milliseconds(5000)), 128 + SIGKILL);
  EXPECT_TRUE(Alive(other.pid()));
  other.Stop(milliseconds(1000));
}

}  // namespace
}  // namespace aftershock::cluster::internal
