// Waiting for a child's port file: servers started with --listen=127.0.0.1:0 --port-file=PATH write
// the port they bound (atomically, via rename) once they listen. The wait ends early when the child
// exits, so a crash at start-up is reported as such, not as a timeout.
//
//   PortFileWait wait = WaitForPortFile(child, scratch.path() + "/port", deadline);
//   if (!wait.port) throw std::runtime_error("server " + wait.failure);  // "exited with code 1 before ..."
#ifndef AFTERSHOCK_FRAMEWORK_PROCESS_PORT_FILE_H_
#define AFTERSHOCK_FRAMEWORK_PROCESS_PORT_FILE_H_

#include <chrono>
#include <optional>
#include <string>

#include "framework/process/child_process.h"

namespace aftershock::process {

// The server side: writes `port` to `path` through a temporary file and rename, so a reader never
// sees half a file. False when either step fails (the temporary file is removed).
bool WritePortFile(const std::string& path, int port);

// The port in `path` (1..65535); nullopt when the file is absent or holds no port yet.
std::optional<int> ReadPortFile(const std::string& path);

struct PortFileWait {
  std::optional<int> port;
  std::string failure;  // Empty with a port; else what happened, to follow the process's name.
};

// Polls `path` until it holds a port, `child` exits, or `deadline` passes (every 10 ms).
PortFileWait WaitForPortFile(ChildProcess& child, const std::string& path,
                             std::chrono::steady_clock::time_point deadline);

}  // namespace aftershock::process

#endif  // AFTERSHOCK_FRAMEWORK_PROCESS_PORT_FILE_H_
