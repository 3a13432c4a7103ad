// The state file of a running aftershock-cluster supervisor: how test processes and the CLI find it.
//
// Small text, one `key=value` per line, written atomically (temp file + rename) once the cluster is
// steady and removed when the supervisor exits. Unknown keys are kept in `extra` so an older reader
// does not choke on a newer writer. The state, its log, its lock and the control socket live in one
// private folder (PrepareStateDir: 0700 when created, refused when it is a symlink, owned by another
// uid, or group/world-writable), by default the per-user runtime folder.
//
//   const std::string path = DefaultStateFilePath();   // e.g. /run/user/0/aftershock/state
//   PrepareStateDir(std::filesystem::path(path).parent_path().string());   // throws naming the problem
//   ClusterStateFile state{.socket = "/run/user/0/aftershock/control.sock", .pid = ::getpid()};
//   WriteStateFile(path, state);
//   ClusterStateFile read = ReadStateFile(path);        // throws when absent
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

// The per-user runtime folder: $XDG_RUNTIME_DIR/aftershock when XDG_RUNTIME_DIR is set, else
// /tmp/aftershock-<euid>.
std::string RuntimeDir();
// The default path: $AFTERSHOCK_CLUSTER_STATE, else RuntimeDir()/state.
std::string DefaultStateFilePath();
// Makes `dir` the supervisor's private folder: creates it (mode 0700; missing parents as usual)
// when absent, then refuses it - std::runtime_error naming the path and what is wrong - when it is
// a symlink, not a directory, owned by another uid than this process's effective one, or group- or
// world-writable. Another local user who pre-creates the folder can then neither make the
// supervisor truncate or delete files through it nor drive the cluster through its socket.
void PrepareStateDir(const std::string& dir);

std::string FormatStateFile(const ClusterStateFile& state);
// Throws std::runtime_error naming the line on a malformed line or a missing socket/pid.
ClusterStateFile ParseStateFile(const std::string& text);

// Creates the parent directory; writes PATH.tmp.PID (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600) and
// renames it over PATH.
void WriteStateFile(const std::string& path, const ClusterStateFile& state);
// Throws std::runtime_error naming the path when it cannot be read or parsed.
ClusterStateFile ReadStateFile(const std::string& path);

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_INTERNAL_STATE_FILE_H_
