#include "framework/cluster/internal/free_ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
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

std::pair<int, int> EphemeralPortRange(const std::string& path) {
  std::ifstream in(path);
  int first = 0, last = 0;
  if (in >> first >> last && first > 0 && first <= last && last <= 65535) return {first, last};
  return {32768, 60999};
}

std::optional<int> FindFreePortBlock(const std::string& host, int count, int low, int high, int attempts,
                                     std::pair<int, int> ephemeral) {
  if (count <= 0 || high - low < count) return std::nullopt;
  // Starting points [a, b], both ends included: those below the ephemeral range and those above it.
  const std::pair<int, int> below{low, std::min(high - count, ephemeral.first - count)};
  const std::pair<int, int> above{std::max(low, ephemeral.second + 1), high - count};
  const auto size = [](std::pair<int, int> r) { return std::max(0, r.second - r.first + 1); };
  const int clear = size(below) + size(above);
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int> pick(0, clear > 0 ? clear - 1 : high - count - low);
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const int n = pick(random);
    const int base = clear == 0 ? low + n : n < size(below) ? below.first + n : above.first + (n - size(below));
    bool all_free = true;
    for (int offset = 0; offset < count && all_free; ++offset) {
      all_free = PortBindable(host, base + offset);
    }
    if (all_free) return base;
  }
  return std::nullopt;
}

std::optional<int> FindFreePortBlock(const std::string& host, int count, int low, int high, int attempts) {
  return FindFreePortBlock(host, count, low, high, attempts, EphemeralPortRange());
}

}  // namespace aftershock::cluster::internal
