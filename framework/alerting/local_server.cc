#include "framework/alerting/local_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>
#include <stdexcept>
#include <thread>

#include "framework/alerting/prom_duration.h"
#include "framework/net/http_exchange.h"
#include "framework/process/log_tail.h"

namespace aftershock::alerting {

namespace fs = std::filesystem;

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket() failed while picking a port");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = 0;
  ::inet_pton(AF_INET, kLoopbackHost, &address.sin_addr);
  socklen_t length = sizeof(address);
  const bool ok = ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot pick a free loopback port");
  return ntohs(address.sin_port);
}

fs::path MakeTempDir(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  return pattern;
}

std::string LogTail(const fs::path& path, int count) {
  if (!fs::exists(path)) return "(no log at " + path.string() + ")";
  std::istringstream tail(process::TailOfFile(path.string(), count));
  std::string out, line;
  while (std::getline(tail, line)) out += "  | " + line + "\n";
  return out.empty() ? "  | (empty)\n" : out;
}

void WaitHttpReady(process::ChildProcess& child, const std::string& name, int port, const std::string& target,
                   const fs::path& log_path, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    if (const std::optional<int> code = child.TryWait()) {
      throw std::runtime_error(name + " (pid " + std::to_string(child.pid()) + ") exited with code " +
                               std::to_string(*code) + " before it was ready; log tail:\n" + LogTail(log_path));
    }
    const net::HttpResult r = net::HttpExchange(
        {.method = "GET", .host = kLoopbackHost, .port = port, .target = target}, std::chrono::milliseconds(1000));
    if (r.answered() && r.status == 200) return;
    last = r.answered() ? "HTTP " + std::to_string(r.status) : r.error;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  throw std::runtime_error(name + " on " + kLoopbackHost + ":" + std::to_string(port) + " not ready within " +
                           FormatPromDuration(timeout) + " (last: " + last + "); log tail:\n" + LogTail(log_path));
}

}  // namespace aftershock::alerting
