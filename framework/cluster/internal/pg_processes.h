// Finding and signalling the PostgreSQL processes of one data directory by exact PID.
//
// Patroni starts the postmaster detached (setsid, reparented to init), so it is not part of
// Patroni's process group; the only reliable handle is the first line of <data>/postmaster.pid,
// cross-checked against /proc/<pid>/cmdline so a stale file or a recycled PID is never signalled.
//
//   if (auto pid = LivePostmasterPid("/tmp/x/a/data")) {
//     std::vector<pid_t> backends = ChildPids(*pid);
//     ...
//   }
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_PG_PROCESSES_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_PG_PROCESSES_H_

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>

#include "framework/process/log_tail.h"
#include <vector>

namespace aftershock::cluster::internal {

// The PID in the first line of <data_dir>/postmaster.pid, if the file exists and parses.
std::optional<pid_t> ReadPostmasterPidFile(const std::string& data_dir);

// The postmaster PID of data_dir when that process is alive and its command line names data_dir.
std::optional<pid_t> LivePostmasterPid(const std::string& data_dir);

// True when pid exists and is not a zombie.
bool ProcessAlive(pid_t pid);

// Direct children of `parent` (from /proc/<pid>/stat), e.g. a postmaster's backends.
std::vector<pid_t> ChildPids(pid_t parent);

// Polls until none of `pids` is alive or the timeout passes; true when all are gone.
bool WaitAllGone(const std::vector<pid_t>& pids, std::chrono::milliseconds timeout);

// The last lines of a log (framework/process/log_tail.h).
using process::TailOfFile;

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_PG_PROCESSES_H_
