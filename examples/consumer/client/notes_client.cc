#include "client/notes_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace consumer {
namespace {

using Clock = std::chrono::steady_clock;

// Milliseconds left until `deadline` (0 when passed), for poll().
int MillisLeft(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left);
}

// Closes the socket on every path.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

NotesReply Failure(std::string why, bool sent, bool timed_out) {
  NotesReply r;
  r.error = std::move(why);
  r.sent = sent;
  r.timed_out = timed_out;
  return r;
}

}  // namespace

NotesClient::NotesClient(const std::string& address) {
  const std::size_t colon = address.rfind(':');
  in_addr probe{};
  if (colon == std::string::npos || ::inet_pton(AF_INET, address.substr(0, colon).c_str(), &probe) != 1)
    throw std::invalid_argument("NotesClient: '" + address + "' is not an IPv4 host:port");
  char* end = nullptr;
  const long port = std::strtol(address.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || port <= 0 || port > 65535)
    throw std::invalid_argument("NotesClient: '" + address + "' has no valid port");
  host_ = address.substr(0, colon);
  port_ = static_cast<std::uint16_t>(port);
}

NotesReply NotesClient::Put(const std::string& key, const std::string& value, std::chrono::milliseconds timeout) const {
  return Exchange("PUT /notes/" + key + " HTTP/1.1\r\nHost: " + host_ + "\r\nContent-Length: " +
                      std::to_string(value.size()) + "\r\nConnection: close\r\n\r\n" + value,
                  timeout);
}

NotesReply NotesClient::Get(const std::string& key, std::chrono::milliseconds timeout) const {
  return Exchange("GET /notes/" + key + " HTTP/1.1\r\nHost: " + host_ + "\r\nConnection: close\r\n\r\n", timeout);
}

NotesReply NotesClient::Exchange(const std::string& request, std::chrono::milliseconds timeout) const {
  const Clock::time_point deadline = Clock::now() + timeout;
  Socket s;
  s.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (s.fd < 0) return Failure(std::string("socket: ") + std::strerror(errno), false, false);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  ::inet_pton(AF_INET, host_.c_str(), &addr.sin_addr);
  if (::connect(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno != EINPROGRESS) return Failure(std::string("connect: ") + std::strerror(errno), false, false);
    pollfd p{s.fd, POLLOUT, 0};
    if (::poll(&p, 1, MillisLeft(deadline)) <= 0) return Failure("connect timed out", false, true);
    int error = 0;
    socklen_t len = sizeof error;
    ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0) return Failure(std::string("connect: ") + std::strerror(error), false, false);
  }
  std::size_t written = 0;
  while (written < request.size()) {
    const ssize_t n = ::send(s.fd, request.data() + written, request.size() - written, MSG_NOSIGNAL);
    if (n > 0) {
      written += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN) return Failure(std::string("send: ") + std::strerror(errno), written > 0, false);
    pollfd p{s.fd, POLLOUT, 0};
    if (::poll(&p, 1, MillisLeft(deadline)) <= 0) return Failure("send timed out", written > 0, true);
  }
  // The service answers with Content-Length; with Connection: close the end of the stream ends it too.
  std::string in;
  char chunk[4096];
  for (;;) {
    const std::size_t head_end = in.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      const std::size_t cl = in.find("Content-Length: ");
      const std::size_t length = cl != std::string::npos && cl < head_end
                                     ? static_cast<std::size_t>(std::strtoul(in.c_str() + cl + 16, nullptr, 10))
                                     : 0;
      if (in.size() >= head_end + 4 + length) {
        NotesReply r;
        if (in.rfind("HTTP/1.1 ", 0) != 0 || in.size() < 12) return Failure("malformed status line", true, false);
        r.status = std::atoi(in.c_str() + 9);
        r.body = in.substr(head_end + 4, length);
        return r;
      }
    }
    pollfd p{s.fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, MillisLeft(deadline));
    if (ready <= 0) return Failure("no complete response within the timeout", true, true);
    const ssize_t n = ::recv(s.fd, chunk, sizeof chunk, 0);
    if (n == 0) return Failure("the connection closed before a complete response", true, false);
    if (n < 0) {
      if (errno == EAGAIN) continue;
      return Failure(std::string("recv: ") + std::strerror(errno), true, false);
    }
    in.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace consumer
