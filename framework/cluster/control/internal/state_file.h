// The state file of a running aftershock-cluster supervisor: how test processes and the CLI find it.
//
// Small text, one `key=value` per line, written atomically (temp file + rename) once the cluster is
// steady and removed when the supervisor exits. Unknown keys are kept in `extra` so an older reader
// does not choke on a newer writer.
//
//   ClusterStateFile state{.socket = "/tmp/aftershock-cluster/control.sock", .pid = ::getpid()};
//   WriteStateFile("/tmp/aftershock-cluster/state", state);
//   ClusterStateFile read = ReadStateFile("/tmp/aftershock-cluster/state");  // throws when absent
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_INTERNAL_STATE_FILE_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_INTERNAL_STATE_FILE_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace aftershock::cluster::internal {

struct ClusterStateFile {
  std::string socket;              // unix socket path (without the "unix:" prefix)
  pid_t pid = 0;                   // the supervisor
  std::int64_t started_unix_ms = 0;
  std::vector<std::pair<std::string, std::string>> replicas;  // name -> "127.0.0.1:PORT", in order
  std::string data_dir;            // the database's temporary data directory
  std::string work_dir;            // the supervisor's scratch directory (replica logs)
  std::map<std::string, std::string> extra;

  friend bool operator==(const ClusterStateFile&, const ClusterStateFile&) = default;
};

// The default path: $AFTERSHOCK_CLUSTER_STATE, else /tmp/aftershock-cluster/state.
std::string DefaultStateFilePath();

std::string FormatStateFile(const ClusterStateFile& state);
// Throws std::runtime_error naming the line on a malformed line or a missing socket/pid.
ClusterStateFile ParseStateFile(const std::string& text);

// Creates the parent directory; writes PATH.tmp.PID and renames it over PATH.
void WriteStateFile(const std::string& path, const ClusterStateFile& state);
// Throws std::runtime_error naming the path when it cannot be read or parsed.
ClusterStateFile ReadStateFile(const std::string& path);

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_INTERNAL_STATE_FILE_H_
