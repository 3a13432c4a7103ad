#include "service/greeting_service.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <cctype>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace consumer {
namespace {

constexpr int kPollMillis = 100;           // how often a blocked thread looks at the stop flag
constexpr std::size_t kMaxConnections = 512;
constexpr std::size_t kMaxHeaderBytes = 16 * 1024;
constexpr std::size_t kMaxBodyBytes = 64 * 1024;
constexpr std::string_view kNotes = "/notes/";

bool SendAll(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::string Response(int status, const std::string& body) {
  const char* reason = status == 200   ? "OK"
                       : status == 204 ? "No Content"
                       : status == 400 ? "Bad Request"
                       : status == 404 ? "Not Found"
                       : status == 413 ? "Content Too Large"
                                       : "Service Unavailable";
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// The Content-Length of a request head (0 when absent); -1 when it is malformed.
long long ContentLength(const std::string& head) {
  std::size_t at = 0;
  while ((at = head.find("\r\n", at)) != std::string::npos) {
    at += 2;
    constexpr std::string_view kName = "content-length:";
    if (head.size() - at < kName.size()) break;
    bool match = true;
    for (std::size_t i = 0; i < kName.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(head[at + i])) == kName[i];
    if (!match) continue;
    char* end = nullptr;
    const long long n = std::strtoll(head.c_str() + at + kName.size(), &end, 10);
    return end == head.c_str() + at + kName.size() || n < 0 ? -1 : n;
  }
  return 0;
}

}  // namespace

GreetingService::GreetingService(std::string greeting) : greeting_(std::move(greeting)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error(std::string("GreetingService: socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;  // a free port
  socklen_t len = sizeof addr;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 512) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listen_fd_);
    throw std::runtime_error("GreetingService: cannot listen on 127.0.0.1: " + why);
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

GreetingService::~GreetingService() {
  stop_.store(true);
  if (acceptor_.joinable()) acceptor_.join();
  ::close(listen_fd_);
  std::unique_lock<std::mutex> lock(mu_);
  connection_ended_.wait(lock, [this] { return active_connections_ == 0; });
}

std::string GreetingService::address() const { return "127.0.0.1:" + std::to_string(port_); }

void GreetingService::AcceptLoop() {
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, kPollMillis) <= 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (active_connections_ >= kMaxConnections) {  // a bounded service: refuse beyond the cap
        ::close(fd);
        continue;
      }
      ++active_connections_;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::thread([this, fd] {
      Serve(fd);
      std::lock_guard<std::mutex> lock(mu_);
      --active_connections_;
      connection_ended_.notify_all();
    }).detach();
  }
}

std::string GreetingService::Answer(const std::string& method, const std::string& path, const std::string& body) {
  if (maintenance_.load()) return Response(503, "maintenance\n");
  if (method == "GET" && path == "/greeting") return Response(200, greeting_ + "\n");
  if (path.rfind(kNotes, 0) != 0 || path.size() == kNotes.size()) return Response(404, "not found\n");
  const std::string key = path.substr(kNotes.size());
  if (method == "PUT") {
    const std::uint64_t n = notes_put_.fetch_add(1) + 1;
    const std::uint64_t every = lose_every_.load();
    if (every != 0 && n % every == 0) {
      notes_lost_.fetch_add(1);  // the seeded defect: acknowledged, never stored
    } else {
      std::lock_guard<std::mutex> lock(notes_mu_);
      notes_[key] = body;
    }
    return Response(204, "");
  }
  if (method == "GET") {
    std::lock_guard<std::mutex> lock(notes_mu_);
    const auto it = notes_.find(key);
    return it == notes_.end() ? Response(404, "no such note\n") : Response(200, it->second);
  }
  return Response(404, "not found\n");
}

// Keep-alive: one request after the other on the connection, until the peer closes or we stop. A
// request ends at its blank line plus its Content-Length.
void GreetingService::Serve(int fd) {
  std::string buffer;
  char chunk[4096];
  while (!stop_.load()) {
    const std::size_t end = buffer.find("\r\n\r\n");
    if (end != std::string::npos) {
      const std::string head = buffer.substr(0, end + 2);
      const long long length = ContentLength(head);
      if (length < 0 || static_cast<std::size_t>(length) > kMaxBodyBytes) {
        SendAll(fd, Response(length < 0 ? 400 : 413, "bad body\n"));
        break;
      }
      if (buffer.size() >= end + 4 + static_cast<std::size_t>(length)) {
        const std::string request_line = head.substr(0, head.find("\r\n"));
        const std::size_t sp1 = request_line.find(' ');
        const std::size_t sp2 = request_line.find(' ', sp1 == std::string::npos ? 0 : sp1 + 1);
        const std::string body = buffer.substr(end + 4, static_cast<std::size_t>(length));
        buffer.erase(0, end + 4 + static_cast<std::size_t>(length));
        const std::string response =
            sp1 == std::string::npos || sp2 == std::string::npos
                ? Response(400, "bad request line\n")
                : Answer(request_line.substr(0, sp1), request_line.substr(sp1 + 1, sp2 - sp1 - 1), body);
        served_.fetch_add(1);
        if (!SendAll(fd, response)) break;
        continue;
      }
    } else if (buffer.size() > kMaxHeaderBytes) {
      break;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, kPollMillis) <= 0) continue;
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
}

}  // namespace consumer
