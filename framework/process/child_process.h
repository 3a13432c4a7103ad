// ChildProcess: an RAII handle for one child program started by a test or a fixture.
//
// The child is started with fork + execve; everything the child needs (argv, environment, the log
// file) is prepared before the fork so the child only makes async-signal-safe calls. An exec failure
// travels back through a close-on-exec pipe, so Start() either returns a running child or throws an
// error naming the program and the reason. The handle only ever signals the PID (and, with
// new_process_group, the process group) of the child it started, and never after it has reaped it,
// so a recycled PID cannot be hit. The child starts with an empty signal mask and every signal at
// its default disposition, whatever the parent blocked or ignored. Destruction stops the child (SIGTERM, grace, SIGKILL, reap).
//
//   ChildOptions options;
//   options.program = "/bin/sh";
//   options.args = {"-c", "echo hello; sleep 30"};
//   options.log_path = "/tmp/child.log";            // stdout + stderr appended here
//   ChildProcess child = ChildProcess::Start(options);
//   ...
//   int code = child.Stop(std::chrono::seconds(2));  // 143 = 128 + SIGTERM
//
// With new_process_group, whatever the child leaves running in its group is killed (SIGKILL) when
// the child is reaped (by Stop, Wait, TryWait or Running), so a test leaves no grandchildren behind.
//
// Exit codes follow the shell convention: a normal exit gives its status (0..255), death by
// signal N gives 128 + N.
//
// Note on die_with_parent: Linux delivers the parent-death signal when the *thread* that forked
// exits, not the whole process. Start long-lived children from a thread that outlives them
// (normally the test's main thread).
#ifndef AFTERSHOCK_FRAMEWORK_PROCESS_CHILD_PROCESS_H_
#define AFTERSHOCK_FRAMEWORK_PROCESS_CHILD_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aftershock::process {

struct ChildOptions {
  // Path of the program, or a bare name looked up in PATH.
  std::string program;
  // Arguments after argv[0] (argv[0] is the program).
  std::vector<std::string> args;
  // Added to (or overriding) the parent's environment.
  std::map<std::string, std::string> extra_env;
  // stdout and stderr are appended to this file; empty = inherit the parent's.
  std::string log_path;
  std::optional<uid_t> run_as_uid;
  std::optional<gid_t> run_as_gid;
  // The child leads its own process group, and Stop() signals the whole group.
  bool new_process_group = true;
  // prctl(PR_SET_PDEATHSIG, SIGKILL): a killed test leaves no orphans behind.
  bool die_with_parent = true;
  // Empty = the parent's working directory.
  std::string working_dir;
  // Descriptors the program keeps across exec. Every other descriptor above stderr is closed at
  // exec, whether or not its owner asked for close-on-exec: a supervisor's sockets (Boost.Asio opens
  // them without it) must not live on in the programs it starts, or a socket it closes stays
  // registered in its epoll set and half-open for its peer, and a lock it holds outlives it.
  std::vector<int> inherit_fds;
};

class ChildProcess {
 public:
  // Throws std::runtime_error naming the program when it cannot be started (including exec failure).
  static ChildProcess Start(const ChildOptions& options);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  // The child's PID; -1 for a moved-from handle. Stays valid (for logging) after the child is reaped.
  pid_t pid() const { return pid_; }
  const std::string& program() const { return program_; }

  // True while the child has not exited. Reaps it when it has.
  bool Running();
  // The exit code once the child has exited (reaping it), nullopt while it runs.
  std::optional<int> TryWait();
  // Waits at most `timeout` for the child to exit and returns its exit code; throws
  // std::runtime_error naming the program when it is still running after the timeout.
  int Wait(std::chrono::milliseconds timeout);
  // Sends `sig` to the child (not its group). A no-op once the child has been reaped.
  void Signal(int sig);
  // SIGTERM to the child (and its group with new_process_group), waits up to `grace`, then SIGKILL;
  // reaps the child and returns its exit code. Idempotent: later calls return the same code.
  int Stop(std::chrono::milliseconds grace = std::chrono::seconds(5));

 private:
  ChildProcess(pid_t pid, std::string program, bool own_group)
      : pid_(pid), program_(std::move(program)), own_group_(own_group) {}

  // True when the child has exited; leaves it unreaped (a zombie still owns its PID and group id).
  bool ExitedWithoutReaping();
  // Reaps an exited child (blocking only if it has not exited); kills the rest of its group first.
  int Reap();
  bool Reaped() const { return exit_code_.has_value(); }
  // Sends `sig` to the group (if owned) and the child, only while unreaped.
  void SignalTree(int sig);
  // Polls until the child has exited (unreaped) or the deadline passes.
  bool AwaitExit(std::chrono::steady_clock::time_point deadline);

  pid_t pid_ = -1;
  std::string program_;
  bool own_group_ = false;
  std::optional<int> exit_code_;
};

}  // namespace aftershock::process

#endif  // AFTERSHOCK_FRAMEWORK_PROCESS_CHILD_PROCESS_H_
