#include "framework/cluster/internal/free_ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>

namespace aftershock::cluster::internal {

bool PortBindable(const std::string& host, int port) {
  if (port <= 0 || port > 65535) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1) return false;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool bound =
      ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0 &&
      ::listen(fd, 1) == 0;
  ::close(fd);
  return bound;
}

std::optional<int> FindFreePortBlock(const std::string& host, int count, int low, int high,
                                     int attempts) {
  if (count <= 0 || high - low < count) return std::nullopt;
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int> start(low, high - count);
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const int base = start(random);
    bool all_free = true;
    for (int offset = 0; offset < count && all_free; ++offset) {
      all_free = PortBindable(host, base + offset);
    }
    if (all_free) return base;
  }
  return std::nullopt;
}

}  // namespace aftershock::cluster::internal
