// Janitor: the clean-up that must work even when the supervisor is SIGKILLed.
//
// A small detached shell child, started before any other process of the cluster. The supervisor
// tells it, over a pipe only the supervisor holds the write end of (close-on-exec), what it creates
// as it creates it: folders and files by device and inode, the process groups it starts, and the
// database data dirs whose postmasters Patroni starts detached (setsid, reparented to init, so
// die_with_parent cannot reach them). When the pipe closes without a `Dismiss()` - the supervisor
// is gone, however it died - the janitor, within a few seconds:
//   1. SIGKILLs every process in a recorded process group whose command line names a recorded data
//      dir (initdb, pg_basebackup, ... orphaned by a killed Patroni; a recycled group id fails the
//      second test);
//   2. SIGQUITs, then SIGKILLs, every postmaster named by a postmaster.pid under a recorded data dir
//      (only when /proc/PID/cmdline names that dir), and the process group it leads;
//   3. removes every recorded folder and file whose path still names the recorded inode (nothing
//      else: never a path read back from a file, and never what another process put in its place).
// A normal shutdown cleans up itself and then dismisses the janitor.
//
//   Janitor janitor = Janitor::Start(log_path);       // before the first other child
//   janitor.RemoveAfterCrash(data_dir);               // stat'ed now: dev + inode
//   janitor.KillGroupAfterCrash(patroni_pid, data_dir);
//   janitor.StopPostmastersAfterCrash(data_dir);
//   ...
//   janitor.Dismiss(std::chrono::seconds(2));         // after a clean Stop()
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_JANITOR_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_JANITOR_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "framework/process/child_process.h"

namespace aftershock::cluster::internal {

// The janitor's shell script (exposed for tests); $1 the pipe's read end (a file descriptor number).
std::string JanitorScript();

class Janitor {
 public:
  // Throws std::runtime_error when the pipe or the shell cannot be started.
  static std::unique_ptr<Janitor> Start(const std::string& log_path);
  ~Janitor();
  Janitor(const Janitor&) = delete;
  Janitor& operator=(const Janitor&) = delete;

  // Thread-safe. Throw std::invalid_argument for a path with a newline and std::runtime_error when
  // the path cannot be stat'ed or the janitor is gone.
  // A folder (removed with everything in it) or a file this process created.
  void RemoveAfterCrash(const std::string& path);
  // A process group this process started (its leader's pid), and the data dir its members name.
  void KillGroupAfterCrash(pid_t pgid, const std::string& data_dir);
  // A database data dir (its members' */data/postmaster.pid); recorded by inode like a folder.
  void StopPostmastersAfterCrash(const std::string& data_dir);
  // Normal shutdown: the janitor exits without touching anything; waits up to `timeout`, then
  // stops it. Idempotent.
  void Dismiss(std::chrono::milliseconds timeout);
  pid_t pid() const { return child_ ? child_->pid() : -1; }

 private:
  Janitor(int fd, process::ChildProcess child) : fd_(fd), child_(std::move(child)) {}
  void Send(const std::string& line);

  std::mutex mu_;
  int fd_ = -1;
  std::optional<process::ChildProcess> child_;
};

// SIGKILLs each PID that is still alive and whose command line names `data_dir` (a postmaster that
// outlived its Patroni); waits for them (bounded). Returns how many were killed.
int KillLeftoverPostgres(const std::vector<pid_t>& pids, const std::string& data_dir);

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_JANITOR_H_
