#include "framework/process/port_file.h"

#include <fstream>
#include <thread>

namespace aftershock::process {

std::optional<int> ReadPortFile(const std::string& path) {
  std::ifstream in(path);
  int port = 0;
  if (in >> port && port > 0 && port < 65536) return port;
  return std::nullopt;
}

PortFileWait WaitForPortFile(ChildProcess& child, const std::string& path,
                             std::chrono::steady_clock::time_point deadline) {
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    if (std::optional<int> code = child.TryWait()) {
      return {std::nullopt, "exited with code " + std::to_string(*code) + " before it was ready"};
    }
    if (std::optional<int> port = ReadPortFile(path)) return {port, ""};
    if (std::chrono::steady_clock::now() >= deadline) {
      // Whole seconds, rounded: the deadline was set a moment before this wait started.
      const auto waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - start).count();
      return {std::nullopt, "wrote no port file within " + std::to_string((waited_ms + 500) / 1000) + " s"};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace aftershock::process
