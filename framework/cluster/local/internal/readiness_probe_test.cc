#include "framework/cluster/local/internal/readiness_probe.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/health_check_service_interface.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "framework/cluster/fault_proxy/fault_proxy.h"

namespace aftershock::cluster::internal {
namespace {

using std::chrono::milliseconds;

// A loopback listener on a free port; with `reply` set, it answers each connection with it.
class Listener {
 public:
  explicit Listener(std::string reply = "") : reply_(std::move(reply)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::listen(fd_, 8), 0);
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    if (!reply_.empty()) {
      thread_ = std::thread([this] {
        while (true) {
          const int client = ::accept(fd_, nullptr, nullptr);
          if (client < 0 || stop_) {
            if (client >= 0) ::close(client);
            return;
          }
          char buffer[2048];
          (void)::read(client, buffer, sizeof(buffer));
          (void)::write(client, reply_.data(), reply_.size());
          ::close(client);
        }
      });
    }
  }
  ~Listener() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }

 private:
  std::string reply_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

int ClosedPort() {
  Listener gone;
  return gone.port();  // closed once `gone` is destroyed
}

TEST(ReadinessProbeTest, TcpIsReadyWhileSomethingListens) {
  Listener listener;
  EXPECT_EQ(ReadinessCheck(listener.port(), {.kind = ReadinessProbe::Kind::kTcp}).Check(milliseconds(1000)),
            ProbeResult::kServing);
  EXPECT_EQ(ReadinessCheck(ClosedPort(), {.kind = ReadinessProbe::Kind::kTcp}).Check(milliseconds(1000)),
            ProbeResult::kNoAnswer);
}

TEST(ReadinessProbeTest, HttpIsReadyOn2xxOnly) {
  const ReadinessProbe probe{.kind = ReadinessProbe::Kind::kHttp, .http_path = "/healthz"};
  Listener ok("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
  EXPECT_EQ(ReadinessCheck(ok.port(), probe).Check(milliseconds(2000)), ProbeResult::kServing);
  Listener draining("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(ReadinessCheck(draining.port(), probe).Check(milliseconds(2000)), ProbeResult::kNotServing);
  EXPECT_EQ(ReadinessCheck(ClosedPort(), probe).Check(milliseconds(1000)), ProbeResult::kNoAnswer);
}

TEST(ReadinessProbeTest, GrpcHealthFollowsTheServersStatus) {
  grpc::EnableDefaultHealthCheckService(true);
  int port = 0;
  grpc::ServerBuilder builder;
  grpc::CallbackGenericService nothing;  // a server needs one service besides health
  builder.RegisterCallbackGenericService(&nothing);
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ReadinessCheck probe(port, {.kind = ReadinessProbe::Kind::kGrpcHealth});
  EXPECT_EQ(probe.Check(milliseconds(3000)), ProbeResult::kServing);
  server->GetHealthCheckService()->SetServingStatus(false);
  EXPECT_EQ(probe.Check(milliseconds(3000)), ProbeResult::kNotServing);
  server->Shutdown();
  EXPECT_EQ(ReadinessCheck(ClosedPort(), {.kind = ReadinessProbe::Kind::kGrpcHealth}).Check(milliseconds(500)),
            ProbeResult::kNoAnswer);
}

// A server whose HTTP/2 handshake takes longer than 100 ms (300 ms each way through the proxy) is
// still found serving: gRPC cuts a connection attempt off after GRPC_ARG_MIN_RECONNECT_BACKOFF_MS,
// and at 100 ms no attempt ever completed (a slow machine, ThreadSanitizer).
TEST(ReadinessProbeTest, GrpcHealthConnectsThroughASlowHandshake) {
  grpc::EnableDefaultHealthCheckService(true);
  int port = 0;
  grpc::ServerBuilder builder;
  grpc::CallbackGenericService nothing;
  builder.RegisterCallbackGenericService(&nothing);
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  auto proxy = FaultProxy::Start("slow-handshake", "127.0.0.1", 0, "127.0.0.1", static_cast<std::uint16_t>(port));
  proxy->SetFaults(ProxyFaults{.latency = milliseconds(300)});
  ReadinessCheck probe(proxy->port(), {.kind = ReadinessProbe::Kind::kGrpcHealth});
  EXPECT_EQ(probe.Check(milliseconds(20000)), ProbeResult::kServing);
  server->Shutdown();
}

}  // namespace
}  // namespace aftershock::cluster::internal
