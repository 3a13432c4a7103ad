#include "framework/process/port_file.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <thread>

namespace aftershock::process {

bool WritePortFile(const std::string& path, int port) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << port << "\n";
    out.flush();
    if (!out) return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

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
