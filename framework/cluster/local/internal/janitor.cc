#include "framework/cluster/local/internal/janitor.h"

#include <signal.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "framework/cluster/internal/pg_processes.h"

namespace aftershock::cluster::internal {
namespace {

bool CmdlineNames(pid_t pid, const std::string& needle) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return !needle.empty() && text.str().find(needle) != std::string::npos;
}

}  // namespace

std::string JanitorScript() {
  return R"sh(sup="$1"; data="$2"; work="$3"; state="$4"
while kill -0 "$sup" 2>/dev/null; do sleep 1; done
echo "janitor: supervisor $sup is gone; cleaning up"
signal_postmasters() {
  for d in "$data"/*/data; do
    f="$d/postmaster.pid"
    [ -f "$f" ] || continue
    p=$(head -n 1 "$f")
    case "$p" in ''|*[!0-9]*) continue ;; esac
    if tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$d"; then
      echo "janitor: kill -$1 postmaster $p ($d)"; kill "-$1" "$p" 2>/dev/null
    fi
  done
}
if [ -n "$data" ] && [ -d "$data" ]; then
  signal_postmasters QUIT
  sleep 3
  signal_postmasters KILL
  sleep 1
  rm -rf -- "$data"
fi
[ -n "$work" ] && rm -rf -- "$work"
if [ -n "$state" ] && grep -qx "pid=$sup" "$state" 2>/dev/null; then
  sock=$(sed -n 's/^socket=//p' "$state")
  rm -f -- "$state"
  [ -n "$sock" ] && rm -f -- "$sock"
fi
echo "janitor: done"
)sh";
}

process::ChildProcess StartJanitor(pid_t supervisor, const std::string& data_dir, const std::string& work_dir,
                                   const std::string& state_file, const std::string& log_path) {
  process::ChildOptions options;
  options.program = "/bin/sh";
  options.args = {"-c", JanitorScript(), "aftershock-cluster-janitor", std::to_string(supervisor), data_dir,
                  work_dir, state_file};
  // Its own group, outside the work dir (which it removes); it must outlive a SIGKILLed parent.
  options.log_path = log_path;
  options.new_process_group = true;
  options.die_with_parent = false;
  options.working_dir = "/";
  return process::ChildProcess::Start(options);
}

int KillLeftoverPostgres(const std::vector<pid_t>& pids, const std::string& data_dir) {
  std::vector<pid_t> killed;
  for (pid_t pid : pids) {
    if (pid <= 0 || !ProcessAlive(pid) || !CmdlineNames(pid, data_dir)) continue;
    for (pid_t child : ChildPids(pid)) ::kill(child, SIGKILL);
    ::kill(pid, SIGKILL);
    killed.push_back(pid);
  }
  if (!killed.empty()) WaitAllGone(killed, std::chrono::seconds(5));
  return static_cast<int>(killed.size());
}

}  // namespace aftershock::cluster::internal
