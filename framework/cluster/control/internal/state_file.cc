#include "framework/cluster/control/internal/state_file.h"

#include <unistd.h>

#include <cstdlib>
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

std::string DefaultStateFilePath() {
  const char* env = std::getenv("AFTERSHOCK_CLUSTER_STATE");
  if (env != nullptr && *env != '\0') return env;
  return "/tmp/aftershock-cluster/state";
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
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << FormatStateFile(state);
    out.flush();
    if (!out) throw std::runtime_error("cannot write state file " + tmp);
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
