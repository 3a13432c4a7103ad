#include "framework/cluster/local/internal/janitor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "framework/cluster/internal/pg_processes.h"

namespace aftershock::cluster::internal {
namespace {

bool CmdlineNames(pid_t pid, const std::string& needle) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return !needle.empty() && text.str().find(needle) != std::string::npos;
}

void CheckPath(const std::string& path) {
  if (path.empty() || path.find('\n') != std::string::npos || path.front() != '/') {
    throw std::invalid_argument("janitor: '" + path + "' is not an absolute path on one line");
  }
}

// "DEV INO PATH" of what `path` names now (not following a symlink).
std::string Identity(const std::string& path) {
  CheckPath(path);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    throw std::runtime_error("janitor: cannot stat " + path + ": " + std::strerror(errno));
  }
  return std::to_string(static_cast<unsigned long long>(st.st_dev)) + " " +
         std::to_string(static_cast<unsigned long long>(st.st_ino)) + " " + path;
}

}  // namespace

// Only shell builtins in the per-process loops: /proc holds hundreds of entries on a busy machine.
std::string JanitorScript() {
  return R"sh(fd="$1"
eval "exec 0<&$fd $fd<&-"
nl='
'
rm_records=""; pg_records=""; pm_records=""
while IFS= read -r line; do
  case "$line" in
    dismiss) echo "janitor: dismissed (the supervisor stopped cleanly)"; exit 0 ;;
    "rm "*) rm_records="$rm_records${line#rm }$nl" ;;
    "pg "*) pg_records="$pg_records${line#pg }$nl" ;;
    "pm "*) pm_records="$pm_records${line#pm }$nl" ;;
    *) echo "janitor: ignoring an unknown record '$line'" ;;
  esac
done
echo "janitor: the supervisor is gone (its end of the pipe closed); cleaning up"
same_inode() { [ "$(stat -c '%d %i' -- "$3" 2>/dev/null)" = "$1 $2" ]; }
names() { tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$2"; }
# Sets pgrp and ppid of process $1 (empty when it is gone), with builtins only.
proc_stat() {
  pgrp=""; ppid=""
  { read -r line < "/proc/$1/stat"; } 2>/dev/null || return 1
  set -- ${line##*) }
  ppid="$2"; pgrp="$3"
}
# 1. Every process in a recorded group that names the group's data dir.
kill_groups() {
  [ -n "$pg_records" ] || return 0
  groups=" $(printf '%s' "$pg_records" | while read -r g d; do printf '%s ' "$g"; done)"
  for s in /proc/[0-9]*/stat; do
    p="${s#/proc/}"; p="${p%/stat}"
    proc_stat "$p" || continue
    case "$groups" in *" $pgrp "*) ;; *) continue ;; esac
    printf '%s' "$pg_records" | while read -r g d; do
      if [ "$g" = "$pgrp" ] && names "$p" "$d"; then
        echo "janitor: kill -KILL $p (process group $g, names $d)"; kill -KILL "$p" 2>/dev/null
      fi
    done
  done
}
# 2. Postmasters named by a pid file under a recorded data dir, and (with KILL) their children.
signal_postmasters() {
  [ -n "$pm_records" ] || return 0
  printf '%s' "$pm_records" | while read -r dev ino data; do
    same_inode "$dev" "$ino" "$data" || continue
    for d in "$data"/*/data; do
      f="$d/postmaster.pid"
      [ -f "$f" ] || continue
      p=$(head -n 1 "$f")
      case "$p" in ''|*[!0-9]*) continue ;; esac
      names "$p" "$d" || continue
      if [ "$1" = KILL ]; then
        for s in /proc/[0-9]*/stat; do
          c="${s#/proc/}"; c="${c%/stat}"
          proc_stat "$c" || continue
          [ "$ppid" = "$p" ] && { echo "janitor: kill -KILL $c (child of postmaster $p)"; kill -KILL "$c" 2>/dev/null; }
        done
      fi
      echo "janitor: kill -$1 postmaster $p ($d)"; kill "-$1" "$p" 2>/dev/null
    done
  done
}
kill_groups
signal_postmasters QUIT
sleep 3
signal_postmasters KILL
kill_groups
sleep 1
# 3. What the supervisor created, only while the path still names that inode.
printf '%s' "$rm_records" | while read -r dev ino path; do
  if same_inode "$dev" "$ino" "$path"; then
    echo "janitor: rm -rf $path"; rm -rf -- "$path"
  elif [ -e "$path" ] || [ -L "$path" ]; then
    echo "janitor: leaving $path alone: it is not what the supervisor created there"
  fi
done
echo "janitor: done"
)sh";
}

std::unique_ptr<Janitor> Janitor::Start(const std::string& log_path) {
  // A socket pair rather than a pipe: send(MSG_NOSIGNAL) to a janitor that died is an error, not
  // a SIGPIPE. Our end is close-on-exec, so no child holds it: it closes exactly when we die.
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw std::runtime_error(std::string("janitor: socketpair: ") + std::strerror(errno));
  }
  // The janitor's end stays open across its exec only (inherit_fds; it stays close-on-exec here, so
  // no other child started meanwhile holds it); it is closed here right after the start.
  process::ChildOptions options;
  options.inherit_fds = {fds[1]};
  options.program = "/bin/sh";
  options.args = {"-c", JanitorScript(), "aftershock-cluster-janitor", std::to_string(fds[1])};
  // Its own group, outside the folders it removes; it must outlive a SIGKILLed parent.
  options.log_path = log_path;
  options.new_process_group = true;
  options.die_with_parent = false;
  options.working_dir = "/";
  std::optional<process::ChildProcess> child;
  try {
    child.emplace(process::ChildProcess::Start(options));
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  return std::unique_ptr<Janitor>(new Janitor(fds[0], std::move(*child)));
}

Janitor::~Janitor() { Dismiss(std::chrono::seconds(2)); }

void Janitor::Send(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ < 0) throw std::runtime_error("janitor: already dismissed");
  const std::string text = line + "\n";
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = ::send(fd_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("janitor: the janitor is gone: ") + std::strerror(errno));
    sent += static_cast<std::size_t>(n);
  }
}

void Janitor::RemoveAfterCrash(const std::string& path) { Send("rm " + Identity(path)); }

void Janitor::KillGroupAfterCrash(pid_t pgid, const std::string& data_dir) {
  CheckPath(data_dir);
  if (pgid <= 1) throw std::invalid_argument("janitor: no process group " + std::to_string(pgid));
  Send("pg " + std::to_string(pgid) + " " + data_dir);
}

void Janitor::StopPostmastersAfterCrash(const std::string& data_dir) { Send("pm " + Identity(data_dir)); }

void Janitor::Dismiss(std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ >= 0) {
    const char text[] = "dismiss\n";
    (void)::send(fd_, text, sizeof(text) - 1, MSG_NOSIGNAL);
    if (child_) {
      try {
        child_->Wait(timeout);
      } catch (const std::exception&) {
        child_->Stop(std::chrono::milliseconds(1000));
      }
    }
    ::close(fd_);
    fd_ = -1;
  }
  child_.reset();
}

int KillLeftoverPostgres(const std::vector<pid_t>& pids, const std::string& data_dir) {
  std::vector<pid_t> killed;
  for (pid_t pid : pids) {
    if (pid <= 0 || !ProcessAlive(pid) || !CmdlineNames(pid, data_dir)) continue;
    // The parent first, its children (listed while it lives) after: a parent that saw a child die
    // first could react before its own SIGKILL (a postmaster restarts its backends; a shell exits 0).
    const std::vector<pid_t> children = ChildPids(pid);
    ::kill(pid, SIGKILL);
    for (pid_t child : children) ::kill(child, SIGKILL);
    killed.push_back(pid);
  }
  if (!killed.empty()) WaitAllGone(killed, std::chrono::seconds(5));
  return static_cast<int>(killed.size());
}

}  // namespace aftershock::cluster::internal
