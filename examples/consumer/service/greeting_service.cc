#include "service/greeting_service.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <stdexcept>

namespace consumer {
namespace {

constexpr int kPollMillis = 100;           // how often a blocked thread looks at the stop flag
constexpr std::size_t kMaxConnections = 512;
constexpr std::size_t kMaxHeaderBytes = 16 * 1024;

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
  const char* reason = status == 200 ? "OK" : status == 404 ? "Not Found" : "Service Unavailable";
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
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
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& t : connections_) t.join();
}

std::string GreetingService::address() const { return "127.0.0.1:" + std::to_string(port_); }

void GreetingService::AcceptLoop() {
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, kPollMillis) <= 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    if (connections_.size() >= kMaxConnections) {  // a bounded service: refuse beyond the cap
      ::close(fd);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    connections_.emplace_back([this, fd] { Serve(fd); });
  }
}

// Keep-alive: one request after the other on the connection, until the peer closes or we stop.
// Requests carry no body (GET), so a request ends at its blank line.
void GreetingService::Serve(int fd) {
  std::string buffer;
  char chunk[4096];
  while (!stop_.load()) {
    const std::size_t end = buffer.find("\r\n\r\n");
    if (end != std::string::npos) {
      const std::string request_line = buffer.substr(0, buffer.find("\r\n"));
      buffer.erase(0, end + 4);
      std::string response;
      if (request_line.rfind("GET /greeting ", 0) != 0) {
        response = Response(404, "not found\n");
      } else if (maintenance_.load()) {
        response = Response(503, "maintenance\n");
      } else {
        response = Response(200, greeting_ + "\n");
      }
      served_.fetch_add(1);
      if (!SendAll(fd, response)) break;
      continue;
    }
    if (buffer.size() > kMaxHeaderBytes) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, kPollMillis) <= 0) continue;
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
}

}  // namespace consumer
