#include "framework/cluster/internal/pg_processes.h"

#include <dirent.h>

#include <cctype>
#include <deque>
#include <fstream>
#include <sstream>
#include <thread>

namespace aftershock::cluster::internal {
namespace {

// The state letter and parent PID from /proc/<pid>/stat ("pid (comm) S ppid ...").
bool ReadStat(pid_t pid, char* state, pid_t* ppid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  const auto close_paren = line.rfind(')');  // comm may contain spaces and parentheses.
  if (close_paren == std::string::npos) return false;
  std::istringstream rest(line.substr(close_paren + 1));
  long parent = 0;
  if (!(rest >> *state >> parent)) return false;
  *ppid = static_cast<pid_t>(parent);
  return true;
}

std::string ReadCmdline(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  return raw;
}

}  // namespace

std::optional<pid_t> ReadPostmasterPidFile(const std::string& data_dir) {
  std::ifstream in(data_dir + "/postmaster.pid");
  std::string first;
  if (!std::getline(in, first) || first.empty()) return std::nullopt;
  for (char c : first) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  const long value = std::stol(first);
  if (value <= 1) return std::nullopt;
  return static_cast<pid_t>(value);
}

bool ProcessAlive(pid_t pid) {
  if (pid <= 0) return false;
  char state = '?';
  pid_t ppid = 0;
  if (!ReadStat(pid, &state, &ppid)) return false;
  return state != 'Z' && state != 'X';
}

std::optional<pid_t> LivePostmasterPid(const std::string& data_dir) {
  const auto pid = ReadPostmasterPidFile(data_dir);
  if (!pid || !ProcessAlive(*pid)) return std::nullopt;
  const std::string cmdline = ReadCmdline(*pid);
  if (cmdline.find("postgres") == std::string::npos ||
      cmdline.find(data_dir) == std::string::npos) {
    return std::nullopt;  // A stale pid file whose PID now belongs to someone else.
  }
  return pid;
}

std::vector<pid_t> ChildPids(pid_t parent) {
  std::vector<pid_t> children;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return children;
  while (const dirent* entry = ::readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    char state = '?';
    pid_t ppid = 0;
    if (ReadStat(pid, &state, &ppid) && ppid == parent && state != 'Z') children.push_back(pid);
  }
  ::closedir(proc);
  return children;
}

bool WaitAllGone(const std::vector<pid_t>& pids, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    bool any_alive = false;
    for (pid_t pid : pids) any_alive = any_alive || ProcessAlive(pid);
    if (!any_alive) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace aftershock::cluster::internal
