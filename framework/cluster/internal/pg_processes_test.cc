#include "framework/cluster/internal/pg_processes.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace aftershock::cluster::internal {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/aftershock-pgproc-test-XXXXXX";
    path_ = ::mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(PgProcessesTest, ReadsFirstLineOfPidFileOnly) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  EXPECT_FALSE(ReadPostmasterPidFile(dir.path()).has_value());
  std::ofstream(dir.path() + "/postmaster.pid") << "4242\n/tmp/x/data\n1700000000\n5432\n";
  EXPECT_EQ(ReadPostmasterPidFile(dir.path()), std::optional<pid_t>(4242));
  std::ofstream(dir.path() + "/postmaster.pid") << "garbage\n";
  EXPECT_FALSE(ReadPostmasterPidFile(dir.path()).has_value());
}

TEST(PgProcessesTest, LivePostmasterRequiresCommandLineToNameTheDataDir) {
  TempDir dir;
  // Our own PID is alive but is not a postgres for this data dir: never treated as its postmaster.
  std::ofstream(dir.path() + "/postmaster.pid") << ::getpid() << "\n";
  EXPECT_FALSE(LivePostmasterPid(dir.path()).has_value());
}

TEST(PgProcessesTest, SeesChildrenAndTreatsReapedOnesAsGone) {
  EXPECT_TRUE(ProcessAlive(::getpid()));
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const std::vector<pid_t> children = ChildPids(::getpid());
  EXPECT_NE(std::find(children.begin(), children.end(), child), children.end());
  EXPECT_TRUE(ProcessAlive(child));
  ::kill(child, SIGKILL);
  // Unreaped, it is a zombie: not alive.
  EXPECT_TRUE(WaitAllGone({child}, std::chrono::seconds(5)));
  ::waitpid(child, nullptr, 0);
  EXPECT_FALSE(ProcessAlive(child));
}

TEST(PgProcessesTest, TailKeepsTheLastLines) {
  TempDir dir;
  const std::string path = dir.path() + "/log";
  std::ofstream(path) << "one\ntwo\nthree\nfour\n";
  EXPECT_EQ(TailOfFile(path, 2), "three\nfour\n");
  EXPECT_EQ(TailOfFile(dir.path() + "/missing", 2), "");
}

}  // namespace
}  // namespace aftershock::cluster::internal
