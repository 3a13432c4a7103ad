#include "framework/process/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace aftershock::process {
namespace {

using namespace std::chrono_literals;

ChildOptions Shell(const std::string& script) {
  ChildOptions options;
  options.program = "/bin/sh";
  options.args = {"-c", script};
  return options;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A scratch directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "process_test_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

bool ProcessExists(pid_t pid) { return ::kill(pid, 0) == 0; }

TEST(ChildProcessTest, ReportsExitCodes) {
  ChildProcess ok = ChildProcess::Start(Shell("exit 0"));
  EXPECT_EQ(ok.Wait(10s), 0);
  ChildProcess three = ChildProcess::Start(Shell("exit 3"));
  EXPECT_EQ(three.Wait(10s), 3);
  // Exit codes are sticky.
  EXPECT_EQ(three.Wait(10s), 3);
  EXPECT_EQ(three.TryWait(), std::optional<int>(3));
  EXPECT_FALSE(three.Running());
  EXPECT_EQ(three.Stop(), 3);
}

TEST(ChildProcessTest, DeathBySignalIs128PlusSignal) {
  ChildProcess child = ChildProcess::Start(Shell("kill -KILL $$"));
  EXPECT_EQ(child.Wait(10s), 128 + SIGKILL);
}

TEST(ChildProcessTest, RunningAndTryWaitWhileAlive) {
  ChildProcess child = ChildProcess::Start(Shell("sleep 30"));
  EXPECT_GT(child.pid(), 0);
  EXPECT_TRUE(child.Running());
  EXPECT_EQ(child.TryWait(), std::nullopt);
  EXPECT_THROW(child.Wait(50ms), std::runtime_error);
  EXPECT_EQ(child.Stop(5s), 128 + SIGTERM);
  EXPECT_FALSE(child.Running());
}

TEST(ChildProcessTest, StopEscalatesToSigkillWhenTermIsIgnored) {
  TempDir dir;
  const std::string ready = dir.File("ready");
  // The shell ignores TERM and loops; `sleep` children inherit the ignored disposition.
  ChildProcess child =
      ChildProcess::Start(Shell("trap '' TERM; touch " + ready + "; while true; do sleep 0.05; done"));
  for (int i = 0; i < 500 && !std::filesystem::exists(ready); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(std::filesystem::exists(ready));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(child.Stop(300ms), 128 + SIGKILL);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 20s);
  // Idempotent.
  EXPECT_EQ(child.Stop(300ms), 128 + SIGKILL);
}

TEST(ChildProcessTest, StopKillsTheWholeProcessGroup) {
  TempDir dir;
  const std::string pid_file = dir.File("grandchild.pid");
  // The grandchild ignores TERM; the group SIGKILL after the leader exits must still take it.
  ChildProcess child = ChildProcess::Start(
      Shell("(trap '' TERM; exec sleep 60) & echo $! > " + pid_file + ".tmp; mv " + pid_file + ".tmp " + pid_file +
            "; wait"));
  for (int i = 0; i < 500 && !std::filesystem::exists(pid_file); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(std::filesystem::exists(pid_file));
  const pid_t grandchild = std::stoi(ReadFile(pid_file));
  ASSERT_TRUE(ProcessExists(grandchild));
  child.Stop(2s);
  // The grandchild was re-parented (to init or a subreaper) and is reaped there; allow a moment.
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    const std::string stat = ReadFile("/proc/" + std::to_string(grandchild) + "/stat");
    gone = stat.empty() || stat.find(") Z") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone) << "grandchild " << grandchild << " survived Stop()";
}

TEST(ChildProcessTest, ReapingKillsWhatTheChildLeftInItsGroup) {
  TempDir dir;
  const std::string pid_file = dir.File("background.pid");
  ChildProcess child = ChildProcess::Start(
      Shell("sleep 60 & echo $! > " + pid_file + ".tmp; mv " + pid_file + ".tmp " + pid_file + "; exit 4"));
  EXPECT_EQ(child.Wait(10s), 4);
  ASSERT_TRUE(std::filesystem::exists(pid_file));
  const pid_t background = std::stoi(ReadFile(pid_file));
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    const std::string stat = ReadFile("/proc/" + std::to_string(background) + "/stat");
    gone = stat.empty() || stat.find(") Z") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone) << "background process " << background << " survived the reap";
}

TEST(ChildProcessTest, CapturesStdoutAndStderrInTheLog) {
  TempDir dir;
  ChildOptions options = Shell("echo to-stdout; echo to-stderr >&2; echo \"$AFTERSHOCK_GREETING\"; pwd");
  options.log_path = dir.File("child.log");
  options.extra_env["AFTERSHOCK_GREETING"] = "hello from env";
  options.working_dir = dir.path();
  {
    std::ofstream(options.log_path) << "existing line\n";
  }
  ChildProcess child = ChildProcess::Start(options);
  ASSERT_EQ(child.Wait(10s), 0);
  const std::string expected = "existing line\nto-stdout\nto-stderr\nhello from env\n" +
                               std::filesystem::canonical(dir.path()).string() + "\n";
  EXPECT_EQ(ReadFile(options.log_path), expected);
}

TEST(ChildProcessTest, ExecFailureNamesTheProgram) {
  ChildOptions options;
  options.program = "/nonexistent/aftershock-no-such-binary";
  try {
    ChildProcess::Start(options);
    FAIL() << "expected Start to throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot start '/nonexistent/aftershock-no-such-binary': execve failed: No such file or directory");
  }
}

TEST(ChildProcessTest, BareNameNotInPathNamesTheProgram) {
  ChildOptions options;
  options.program = "aftershock-no-such-binary";
  try {
    ChildProcess::Start(options);
    FAIL() << "expected Start to throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot start 'aftershock-no-such-binary': not found in PATH");
  }
}

TEST(ChildProcessTest, BadWorkingDirectoryIsReported) {
  ChildOptions options = Shell("exit 0");
  options.working_dir = "/nonexistent-dir-for-aftershock";
  try {
    ChildProcess::Start(options);
    FAIL() << "expected Start to throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot start '/bin/sh': chdir failed: No such file or directory");
  }
}

TEST(ChildProcessTest, BareNameIsFoundInPath) {
  ChildOptions options;
  options.program = "sh";
  options.args = {"-c", "exit 7"};
  ChildProcess child = ChildProcess::Start(options);
  EXPECT_EQ(child.Wait(10s), 7);
}

TEST(ChildProcessTest, NewProcessGroupIsLedByTheChild) {
  ChildProcess child = ChildProcess::Start(Shell("sleep 30"));
  EXPECT_EQ(::getpgid(child.pid()), child.pid());
  ChildOptions same_group = Shell("exec sleep 30");
  same_group.new_process_group = false;
  ChildProcess other = ChildProcess::Start(same_group);
  EXPECT_EQ(::getpgid(other.pid()), ::getpgrp());
}

TEST(ChildProcessTest, SignalReachesTheChild) {
  ChildProcess child = ChildProcess::Start(Shell("sleep 30"));
  child.Signal(SIGUSR1);
  EXPECT_EQ(child.Wait(10s), 128 + SIGUSR1);
  child.Signal(SIGKILL);  // No-op after reaping.
  EXPECT_EQ(child.Stop(), 128 + SIGUSR1);
}

TEST(ChildProcessTest, MoveTransfersOwnership) {
  ChildProcess first = ChildProcess::Start(Shell("sleep 30"));
  const pid_t pid = first.pid();
  ChildProcess second = std::move(first);
  EXPECT_EQ(second.pid(), pid);
  EXPECT_EQ(first.pid(), -1);  // NOLINT(bugprone-use-after-move): the moved-from state is specified.
  EXPECT_FALSE(first.Running());
  EXPECT_EQ(first.Stop(), -1);
  EXPECT_TRUE(second.Running());

  ChildProcess third = ChildProcess::Start(Shell("sleep 30"));
  const pid_t third_pid = third.pid();
  third = std::move(second);  // Stops what `third` held before.
  EXPECT_EQ(third.pid(), pid);
  EXPECT_FALSE(ProcessExists(third_pid));
  EXPECT_TRUE(third.Running());
}

TEST(ChildProcessTest, DestructorStopsTheChild) {
  pid_t pid = -1;
  {
    ChildProcess child = ChildProcess::Start(Shell("sleep 30"));
    pid = child.pid();
    ASSERT_TRUE(ProcessExists(pid));
  }
  EXPECT_FALSE(ProcessExists(pid));
}

TEST(ChildProcessTest, IgnoredSignalsAreNotInherited) {
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ASSERT_EQ(sigaction(SIGTERM, &ignore, &old), 0);
  ChildProcess child = ChildProcess::Start(Shell("exec sleep 30"));
  sigaction(SIGTERM, &old, nullptr);
  EXPECT_EQ(child.Stop(10s), 128 + SIGTERM);
}

TEST(ChildProcessTest, BlockedSignalsAreNotInherited) {
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &term, &old), 0);
  ChildProcess child = ChildProcess::Start(Shell("sleep 30"));
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  EXPECT_EQ(child.Stop(10s), 128 + SIGTERM);
}

// A supervisor's sockets are opened without close-on-exec (Boost.Asio does so): they must not live on
// in the programs it starts. Seen on the embedded cluster: Patroni and the replicas held every fault
// proxy's sockets, so a closed connection stayed half-open and registered in the proxy's epoll set,
// and after a primary kill the proxies stopped accepting: the service never came back.
TEST(ChildProcessTest, OnlyStdioAndInheritFdsCrossTheExec) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);  // deliberately without SOCK_CLOEXEC
  int kept[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, kept), 0);
  TempDir dir;
  ChildOptions options = Shell("for fd in " + std::to_string(pair[0]) + " " + std::to_string(kept[1]) +
                               "; do if [ -e /proc/self/fd/$fd ]; then echo open $fd; else echo closed $fd; fi; done");
  options.log_path = dir.path() + "/fds.log";
  options.inherit_fds = {kept[1]};
  ChildProcess child = ChildProcess::Start(options);
  EXPECT_EQ(child.Wait(10s), 0);
  EXPECT_EQ(ReadFile(options.log_path),
            "closed " + std::to_string(pair[0]) + "\nopen " + std::to_string(kept[1]) + "\n");
  // The parent's descriptors are untouched, close-on-exec flags included.
  EXPECT_EQ(::fcntl(pair[0], F_GETFD) & FD_CLOEXEC, 0);
  EXPECT_NE(::fcntl(kept[1], F_GETFD) & FD_CLOEXEC, 0);
  for (int fd : {pair[0], pair[1], kept[0], kept[1]}) ::close(fd);
}

TEST(ChildProcessTest, AnInheritFdThatIsNotOpenIsReported) {
  ChildOptions options = Shell("true");
  options.inherit_fds = {987654};
  try {
    ChildProcess::Start(options);
    FAIL() << "expected a start error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("keeping an inherit_fds descriptor open across exec"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace aftershock::process
