#include "framework/process/fd_limit.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

namespace aftershock::process {

std::optional<std::string> EnsureFileDescriptors(int connections, int headroom) {
  const rlim_t needed = static_cast<rlim_t>(connections) + static_cast<rlim_t>(headroom);
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return std::string("getrlimit(RLIMIT_NOFILE): ") + std::strerror(errno);
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed) return std::nullopt;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) {
    return "max_in_flight " + std::to_string(connections) + " needs " + std::to_string(needed) +
           " file descriptors (one connection per call in flight, plus " + std::to_string(headroom) +
           "), but the hard RLIMIT_NOFILE is " + std::to_string(limit.rlim_max) +
           ": raise it (ulimit -Hn, or LimitNOFILE= for a service) or lower RESILIENCE_MAX_IN_FLIGHT";
  }
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? needed : limit.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return "raising the soft RLIMIT_NOFILE to " + std::to_string(limit.rlim_cur) + " for max_in_flight " +
           std::to_string(connections) + " failed: " + std::strerror(errno);
  }
  return std::nullopt;
}

}  // namespace aftershock::process
