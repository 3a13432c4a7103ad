#include "framework/cluster/local/internal/readiness_probe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include <grpcpp/grpcpp.h>

#include "framework/cluster/local/health.grpc.pb.h"
#include "framework/net/http_exchange.h"

namespace aftershock::cluster::internal {

struct ReadinessCheck::Stub {
  std::unique_ptr<grpc::health::v1::Health::Stub> health;
};

ReadinessCheck::ReadinessCheck(int port, ReadinessProbe probe)
    : port_(port), probe_(std::move(probe)), stub_(std::make_unique<Stub>()) {
  if (probe_.kind != ReadinessProbe::Kind::kGrpcHealth) return;
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  // gRPC takes this as the least time one connection attempt (TCP connect and HTTP/2 handshake)
  // may take, not as a backoff. At 100 ms a slow machine never connected: under ThreadSanitizer
  // the handshake took longer and was cut off ("handshaker shutdown"), 2 checks in 10.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 5000);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  channel_ = grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials(), args);
  stub_->health = grpc::health::v1::Health::NewStub(channel_);
}

ReadinessCheck::~ReadinessCheck() = default;

ProbeResult ReadinessCheck::Check(std::chrono::milliseconds timeout) {
  switch (probe_.kind) {
    case ReadinessProbe::Kind::kGrpcHealth: {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + timeout);
      grpc::health::v1::HealthCheckRequest request;  // service "" = the whole server
      grpc::health::v1::HealthCheckResponse response;
      const grpc::Status status = stub_->health->Check(&context, request, &response);
      if (!status.ok()) return ProbeResult::kNoAnswer;
      return response.status() == grpc::health::v1::HealthCheckResponse::SERVING ? ProbeResult::kServing
                                                                                 : ProbeResult::kNotServing;
    }
    case ReadinessProbe::Kind::kHttp: {
      const net::HttpResult r = net::HttpExchange({.port = port_, .target = probe_.http_path}, timeout);
      if (!r.answered()) return ProbeResult::kNoAnswer;
      return r.success() ? ProbeResult::kServing : ProbeResult::kNotServing;
    }
    case ReadinessProbe::Kind::kTcp:
      return TcpConnects(port_, timeout) ? ProbeResult::kServing : ProbeResult::kNoAnswer;
  }
  return ProbeResult::kNoAnswer;
}

bool TcpConnects(int port, std::chrono::milliseconds timeout) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  if (!connected && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) == 1) {
      int error = 0;
      socklen_t len = sizeof(error);
      connected = ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) == 0 && error == 0;
    }
  }
  ::close(fd);
  return connected;
}

}  // namespace aftershock::cluster::internal
