// Clean-up that must work even when the supervisor is SIGKILLed.
//
// Patroni starts each postmaster detached (setsid, reparented to init), so die_with_parent stops
// Patroni but not PostgreSQL. The janitor is a small detached shell child that waits for the
// supervisor's PID to disappear and then SIGQUITs (later SIGKILLs) every postmaster named by a
// postmaster.pid under the data dir — only when /proc/PID/cmdline names that data dir — removes the
// temporary directories, and the state file if it still names the dead supervisor. A normal
// shutdown stops the janitor after doing all of that itself.
//
//   process::ChildProcess janitor = StartJanitor(::getpid(), data_dir, work_dir, state_file, log);
//   ...
//   KillLeftoverPostgres(postmaster_pids, data_dir);   // after PatroniCluster::Stop()
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_JANITOR_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_JANITOR_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "framework/process/child_process.h"

namespace aftershock::cluster::internal {

// The janitor's shell script (exposed for tests); $1 supervisor pid, $2 data dir, $3 work dir,
// $4 state file (may be empty).
std::string JanitorScript();

process::ChildProcess StartJanitor(pid_t supervisor, const std::string& data_dir, const std::string& work_dir,
                                   const std::string& state_file, const std::string& log_path);

// SIGKILLs each PID that is still alive and whose command line names `data_dir` (a postmaster that
// outlived its Patroni); waits for them (bounded). Returns how many were killed.
int KillLeftoverPostgres(const std::vector<pid_t>& pids, const std::string& data_dir);

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_JANITOR_H_
