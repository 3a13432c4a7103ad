#include "framework/chaos/postgres_probe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <future>
#include <utility>
#include <vector>

#include "framework/common/duration_text.h"

namespace aftershock::chaos {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

}  // namespace

PostgresProbeResult ProbePostgres(int port, milliseconds timeout) {
  const auto start = Clock::now();
  PostgresProbeResult result;
  const auto elapsed = [&] { return std::chrono::duration_cast<milliseconds>(Clock::now() - start); };
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return result;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const auto left = [&] {
    return static_cast<int>(std::max<std::int64_t>(0, (timeout - elapsed()).count()));
  };
  int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  if (rc != 0 && errno != EINPROGRESS) {
    ::close(fd);
    result.elapsed = elapsed();
    return result;
  }
  pollfd p{fd, POLLOUT, 0};
  if (rc != 0) {
    rc = ::poll(&p, 1, left());
    int error = 0;
    socklen_t len = sizeof error;
    if (rc == 0) {
      ::close(fd);
      result.outcome = PostgresProbe::kHung;
      result.elapsed = elapsed();
      return result;
    }
    if (rc < 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) {
      ::close(fd);
      result.elapsed = elapsed();
      return result;
    }
  }
  // SSLRequest: length 8, code 80877103; a PostgreSQL server answers one byte ('S' or 'N').
  const unsigned char request[8] = {0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f};
  if (::send(fd, request, sizeof request, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof request)) {
    ::close(fd);
    result.elapsed = elapsed();
    return result;
  }
  p = {fd, POLLIN, 0};
  rc = ::poll(&p, 1, left());
  if (rc == 0) {
    result.outcome = PostgresProbe::kHung;
  } else if (rc > 0) {
    char byte = 0;
    result.outcome = ::recv(fd, &byte, 1, 0) == 1 ? PostgresProbe::kAnswered : PostgresProbe::kClosed;
  }
  ::close(fd);
  result.elapsed = elapsed();
  return result;
}


ProbeRound ProbeMembers(const ClusterState& status, const std::function<int(const DatabaseMemberState&)>& port_of,
                        milliseconds timeout, bool running_only) {
  ProbeRound round;
  // In parallel: a blackhole costs the timeout per member, and the fault's window is short.
  std::vector<std::pair<const DatabaseMemberState*, std::future<PostgresProbeResult>>> probes;
  for (const auto& m : status.members) {
    const int port = port_of(m);
    if (port <= 0) continue;
    if (running_only && m.state != "running") continue;
    probes.emplace_back(&m, std::async(std::launch::async, [port, timeout] { return ProbePostgres(port, timeout); }));
  }
  for (auto& [member, probe] : probes) {
    const DatabaseMemberState& m = *member;
    const PostgresProbeResult r = probe.get();
    ++round.probed;
    std::string what;
    switch (r.outcome) {
      case PostgresProbe::kAnswered:
        ++round.answered;
        what = "answered in " + MsText(r.elapsed);
        break;
      case PostgresProbe::kHung:
        ++round.hung;
        what = "no answer in " + MsText(timeout);
        break;
      case PostgresProbe::kClosed:
        ++round.closed;
        what = "closed (member " + m.state + ")";
        break;
    }
    round.text += (round.text.empty() ? "" : ", ") + m.name + " " + what;
  }
  return round;
}


}  // namespace aftershock::chaos
