#include "framework/cluster/control/internal/state_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace aftershock::cluster::internal {
namespace {

constexpr char kReplicaPrefix[] = "replica.";

std::int64_t ParseInt(const std::string& key, const std::string& value, int line) {
  std::size_t used = 0;
  std::int64_t parsed = 0;
  try {
    parsed = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (value.empty() || used != value.size()) {
    throw std::runtime_error("state file line " + std::to_string(line) + ": " + key + "='" + value +
                             "' is not an integer");
  }
  return parsed;
}

}  // namespace

std::string RuntimeDir() {
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  if (xdg != nullptr && *xdg != '\0') return std::string(xdg) + "/aftershock";
  return "/tmp/aftershock-" + std::to_string(::geteuid());
}

std::string DefaultStateFilePath() {
  const char* env = std::getenv("AFTERSHOCK_CLUSTER_STATE");
  if (env != nullptr && *env != '\0') return env;
  return RuntimeDir() + "/state";
}

void PrepareStateDir(const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) throw std::runtime_error("the cluster state folder has no name");
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      throw std::runtime_error("cluster state folder " + dir + ": " + std::strerror(errno));
    }
    std::error_code ec;
    const fs::path parent = fs::path(dir).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      throw std::runtime_error("cannot create the cluster state folder " + dir + ": " + std::strerror(errno));
    }
    if (::lstat(dir.c_str(), &st) != 0) {
      throw std::runtime_error("cluster state folder " + dir + ": " + std::strerror(errno));
    }
  }
  const std::string refused = "refusing the cluster state folder " + dir + ": ";
  if (S_ISLNK(st.st_mode)) throw std::runtime_error(refused + "it is a symlink (use a real folder)");
  if (!S_ISDIR(st.st_mode)) throw std::runtime_error(refused + "it is not a folder");
  if (st.st_uid != ::geteuid()) {
    throw std::runtime_error(refused + "it is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
                             std::to_string(::geteuid()) + ")");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw std::runtime_error(refused + "it is group- or world-writable (mode " + mode + "; chmod go-w it or remove it)");
  }
}

std::string FormatStateFile(const ClusterStateFile& state) {
  std::ostringstream out;
  out << "socket=" << state.socket << "\n";
  out << "pid=" << state.pid << "\n";
  out << "started_unix_ms=" << state.started_unix_ms << "\n";
  std::string all;
  for (const auto& [name, address] : state.replicas) {
    out << kReplicaPrefix << name << "=" << address << "\n";
    all += (all.empty() ? "" : ",") + address;
  }
  out << "replicas=" << all << "\n";
  if (!state.data_dir.empty()) out << "data_dir=" << state.data_dir << "\n";
  if (!state.work_dir.empty()) out << "work_dir=" << state.work_dir << "\n";
  for (const auto& [key, value] : state.extra) out << key << "=" << value << "\n";
  return out.str();
}

ClusterStateFile ParseStateFile(const std::string& text) {
  ClusterStateFile state;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool have_socket = false;
  bool have_pid = false;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw std::runtime_error("state file line " + std::to_string(number) + ": expected key=value, got '" + line +
                               "'");
    }
    const std::string key = line.substr(0, eq);
    const std::string value = line.substr(eq + 1);
    if (key == "socket") {
      state.socket = value;
      have_socket = !value.empty();
    } else if (key == "pid") {
      state.pid = static_cast<pid_t>(ParseInt(key, value, number));
      have_pid = state.pid > 0;
    } else if (key == "started_unix_ms") {
      state.started_unix_ms = ParseInt(key, value, number);
    } else if (key.rfind(kReplicaPrefix, 0) == 0) {
      state.replicas.emplace_back(key.substr(sizeof(kReplicaPrefix) - 1), value);
    } else if (key == "replicas") {
      // Derived from the replica.NAME lines.
    } else if (key == "data_dir") {
      state.data_dir = value;
    } else if (key == "work_dir") {
      state.work_dir = value;
    } else {
      state.extra[key] = value;
    }
  }
  if (!have_socket) throw std::runtime_error("state file has no socket= line");
  if (!have_pid) throw std::runtime_error("state file has no valid pid= line");
  return state;
}

void WriteStateFile(const std::string& path, const ClusterStateFile& state) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  ::unlink(tmp.c_str());  // a leftover of an earlier process with this pid; never followed
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot create state file " + tmp + ": " + std::strerror(errno));
  const std::string text = FormatStateFile(state);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const bool ok = written == text.size() && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) {
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot write state file " + tmp);
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot rename state file to " + path);
  }
}

ClusterStateFile ReadStateFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("no cluster state file at " + path +
                             " (is aftershock-cluster up? set AFTERSHOCK_CLUSTER_STATE to another path)");
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    return ParseStateFile(text.str());
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace aftershock::cluster::internal
