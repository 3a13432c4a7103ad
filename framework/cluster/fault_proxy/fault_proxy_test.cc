#include "framework/cluster/fault_proxy/fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>

namespace aftershock::cluster {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using std::chrono::milliseconds;
using std::chrono::seconds;
using SteadyClock = std::chrono::steady_clock;
using Bytes = std::vector<std::uint8_t>;

// Echo server on 127.0.0.1:0, on its own io thread; counts the connections it accepted.
class EchoServer {
 public:
  EchoServer() : acceptor_(io_, tcp::endpoint(asio::ip::address_v4::loopback(), 0)) {
    Accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~EchoServer() {
    io_.stop();
    thread_.join();
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  int accepted() const { return accepted_.load(); }

 private:
  struct Session : std::enable_shared_from_this<Session> {
    explicit Session(tcp::socket s) : socket(std::move(s)) {}
    void Read() {
      socket.async_read_some(asio::buffer(buffer), [self = shared_from_this()](boost::system::error_code ec,
                                                                               std::size_t n) {
        if (ec) return;  // EOF or error: the session ends and its socket closes
        asio::async_write(self->socket, asio::buffer(self->buffer.data(), n),
                          [self](boost::system::error_code wec, std::size_t) {
                            if (!wec) self->Read();
                          });
      });
    }
    tcp::socket socket;
    std::array<std::uint8_t, 8192> buffer{};
  };

  void Accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) return;
      accepted_.fetch_add(1);
      std::make_shared<Session>(std::move(socket))->Read();
      Accept();
    });
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

enum class ReadResult { kData, kTimeout, kEof, kReset, kError };

const char* Name(ReadResult r) {
  switch (r) {
    case ReadResult::kData: return "data";
    case ReadResult::kTimeout: return "timeout";
    case ReadResult::kEof: return "eof";
    case ReadResult::kReset: return "reset";
    case ReadResult::kError: return "error";
  }
  return "?";
}

// A plain blocking client socket, so that timeouts, EOF and RST are told apart exactly.
class Client {
 public:
  explicit Client(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    if (fd_ < 0) throw std::runtime_error("socket failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::close(fd_);
      throw std::runtime_error("connect failed");
    }
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~Client() { ::close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool SendAll(const Bytes& data) {
    std::size_t sent = 0;
    while (sent < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }
  bool SendAll(const std::string& text) { return SendAll(Bytes(text.begin(), text.end())); }

  // Reads exactly n bytes into *out (appending) unless the timeout, EOF or an error comes first.
  ReadResult ReadExactly(std::size_t n, milliseconds timeout, Bytes* out) {
    const auto deadline = SteadyClock::now() + timeout;
    std::size_t got = 0;
    std::uint8_t buffer[65536];
    while (got < n) {
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - SteadyClock::now()).count();
      if (left <= 0) return ReadResult::kTimeout;
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(left));
      if (ready == 0) return ReadResult::kTimeout;
      if (ready < 0) return ReadResult::kError;
      const ssize_t r = ::recv(fd_, buffer, std::min(sizeof(buffer), n - got), 0);
      if (r == 0) return ReadResult::kEof;
      if (r < 0) return errno == ECONNRESET ? ReadResult::kReset : ReadResult::kError;
      out->insert(out->end(), buffer, buffer + r);
      got += static_cast<std::size_t>(r);
    }
    return ReadResult::kData;
  }

  std::string ReadText(std::size_t n, milliseconds timeout, ReadResult* result) {
    Bytes out;
    *result = ReadExactly(n, timeout, &out);
    return std::string(out.begin(), out.end());
  }

  void ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }

 private:
  int fd_;
};

Bytes RandomBytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  Bytes out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(byte(rng));
  return out;
}

// Polls `done` every 10 ms until it holds or `timeout` passes.
bool WaitFor(const std::function<bool()>& done, milliseconds timeout) {
  const auto deadline = SteadyClock::now() + timeout;
  while (SteadyClock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return done();
}

// Sends `data` from a second thread while reading the echo, so neither side's buffers deadlock.
ReadResult EchoRoundTrip(Client& client, const Bytes& data, milliseconds timeout, Bytes* echoed) {
  bool sent = false;
  std::thread writer([&] { sent = client.SendAll(data); });
  const ReadResult result = client.ReadExactly(data.size(), timeout, echoed);
  writer.join();
  return sent ? result : ReadResult::kError;
}

std::unique_ptr<FaultProxy> StartProxy(const EchoServer& echo) {
  return FaultProxy::Start("db-0", "127.0.0.1", 0, "127.0.0.1", echo.port());
}

TEST(FaultProxyTest, PassThroughPreservesRandomBytes) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  EXPECT_EQ(proxy->name(), "db-0");
  ASSERT_NE(proxy->port(), 0);

  const Bytes data = RandomBytes(512 * 1024, 1);
  Client client(proxy->port());
  Bytes echoed;
  ASSERT_EQ(EchoRoundTrip(client, data, seconds(20), &echoed), ReadResult::kData);
  EXPECT_TRUE(echoed == data);

  // The counters move when the proxy's write completes, which may be just after the client read.
  EXPECT_TRUE(WaitFor([&] { return proxy->stats().bytes_down == data.size(); }, seconds(5)));
  const auto stats = proxy->stats();
  EXPECT_EQ(stats.accepted, 1u);
  EXPECT_EQ(stats.active, 1u);
  EXPECT_EQ(stats.bytes_up, data.size());
  EXPECT_EQ(stats.bytes_down, data.size());
  EXPECT_EQ(stats.resets, 0u);
  EXPECT_EQ(echo.accepted(), 1);
}

TEST(FaultProxyTest, ConcurrentConnectionsStaySeparate) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  constexpr int kClients = 6;
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<Bytes> payloads;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<Client>(proxy->port()));
    payloads.push_back(RandomBytes(64 * 1024, 100 + i));
  }
  std::vector<std::thread> threads;
  std::vector<int> ok(kClients, 0);
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      Bytes echoed;
      ok[i] = EchoRoundTrip(*clients[i], payloads[i], seconds(20), &echoed) == ReadResult::kData &&
              echoed == payloads[i];
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kClients; ++i) EXPECT_EQ(ok[i], 1) << "client " << i;
  EXPECT_EQ(proxy->stats().accepted, static_cast<std::uint64_t>(kClients));
  const std::uint64_t total = static_cast<std::uint64_t>(kClients) * 64 * 1024;
  EXPECT_TRUE(WaitFor([&] { return proxy->stats().bytes_down == total; }, seconds(5)));
  EXPECT_EQ(proxy->stats().bytes_up, total);
  EXPECT_EQ(proxy->stats().bytes_down, total);
}

TEST(FaultProxyTest, LatencyAddsAtLeastTheLatencyEachWay) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  Client client(proxy->port());
  ReadResult r;
  ASSERT_TRUE(client.SendAll("warm"));
  ASSERT_EQ(client.ReadText(4, seconds(5), &r), "warm");

  proxy->SetFaults(ProxyFaults{.latency = milliseconds(150)});
  EXPECT_EQ(proxy->faults().latency, milliseconds(150));
  for (int i = 0; i < 3; ++i) {
    const auto start = SteadyClock::now();
    ASSERT_TRUE(client.SendAll("ping"));
    ASSERT_EQ(client.ReadText(4, seconds(10), &r), "ping") << Name(r);
    const auto rtt = SteadyClock::now() - start;
    EXPECT_GE(rtt, milliseconds(300));  // 150 ms up + 150 ms down
    EXPECT_LT(rtt, seconds(5));
  }

  proxy->ClearFaults();
  EXPECT_EQ(proxy->faults(), ProxyFaults{});
  ASSERT_TRUE(client.SendAll("fast"));
  ASSERT_EQ(client.ReadText(4, seconds(5), &r), "fast");
}

TEST(FaultProxyTest, JitterStaysWithinBoundsAndKeepsOrder) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  Client client(proxy->port());
  proxy->SetFaults(ProxyFaults{.latency = milliseconds(60), .jitter = milliseconds(40)});
  ReadResult r;
  for (int i = 0; i < 8; ++i) {
    const std::string msg = "m" + std::to_string(i);
    const auto start = SteadyClock::now();
    ASSERT_TRUE(client.SendAll(msg));
    ASSERT_EQ(client.ReadText(msg.size(), seconds(10), &r), msg) << Name(r);
    const auto rtt = SteadyClock::now() - start;
    EXPECT_GE(rtt, milliseconds(40));  // 2 * (60 - 40)
    EXPECT_LT(rtt, seconds(5));        // 2 * (60 + 40) plus a generous allowance for a busy machine
  }
  // Many small writes in a burst: each gets its own jitter, yet they must arrive in order.
  std::string burst;
  for (int i = 0; i < 50; ++i) {
    const std::string piece = "<" + std::to_string(i) + ">";
    burst += piece;
    ASSERT_TRUE(client.SendAll(piece));
    std::this_thread::sleep_for(milliseconds(2));
  }
  EXPECT_EQ(client.ReadText(burst.size(), seconds(10), &r), burst) << Name(r);
}

TEST(FaultProxyTest, BlackholeHoldsDataWithoutResetAndHealingDeliversIt) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  Client existing(proxy->port());
  ReadResult r;
  ASSERT_TRUE(existing.SendAll("before"));
  ASSERT_EQ(existing.ReadText(6, seconds(5), &r), "before");

  proxy->SetFaults(ProxyFaults{.blackhole = true});
  ASSERT_TRUE(existing.SendAll("held-"));
  ASSERT_TRUE(existing.SendAll("in-order"));
  EXPECT_EQ(existing.ReadText(1, milliseconds(300), &r), "");
  EXPECT_EQ(r, ReadResult::kTimeout) << Name(r);  // not EOF, not RST

  // A new connection is accepted and hangs; the database does not even see it yet.
  Client fresh(proxy->port());
  ASSERT_TRUE(fresh.SendAll("new"));
  EXPECT_EQ(fresh.ReadText(1, milliseconds(300), &r), "");
  EXPECT_EQ(r, ReadResult::kTimeout) << Name(r);
  EXPECT_EQ(echo.accepted(), 1);
  EXPECT_TRUE(WaitFor([&] { return proxy->stats().accepted == 2 && proxy->stats().active == 2; }, seconds(5)));
  EXPECT_EQ(proxy->stats().active, 2u);

  proxy->ClearFaults();
  EXPECT_EQ(existing.ReadText(13, seconds(5), &r), "held-in-order") << Name(r);
  EXPECT_EQ(fresh.ReadText(3, seconds(5), &r), "new") << Name(r);
  EXPECT_EQ(echo.accepted(), 2);
  EXPECT_EQ(proxy->stats().resets, 0u);
}

TEST(FaultProxyTest, BlackholeHoldsALargeTransferIntact) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  Client client(proxy->port());
  proxy->SetFaults(ProxyFaults{.blackhole = true});
  const Bytes data = RandomBytes(300 * 1024, 9);
  bool sent = false;
  std::thread writer([&] { sent = client.SendAll(data); });
  Bytes echoed;
  EXPECT_EQ(client.ReadExactly(1, milliseconds(300), &echoed), ReadResult::kTimeout);
  proxy->ClearFaults();
  EXPECT_EQ(client.ReadExactly(data.size() - echoed.size(), seconds(20), &echoed), ReadResult::kData);
  writer.join();
  EXPECT_TRUE(sent);
  EXPECT_TRUE(echoed == data);
}

TEST(FaultProxyTest, ResetCutsExistingConnectionsAndNewOnes) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  Client existing(proxy->port());
  ReadResult r;
  ASSERT_TRUE(existing.SendAll("hi"));
  ASSERT_EQ(existing.ReadText(2, seconds(5), &r), "hi");

  proxy->SetFaults(ProxyFaults{.reset = true});
  existing.ReadText(1, seconds(2), &r);
  EXPECT_TRUE(r == ReadResult::kReset || r == ReadResult::kEof) << Name(r);

  Client fresh(proxy->port());  // the kernel completes the handshake; the proxy then resets it
  fresh.ReadText(1, seconds(2), &r);
  EXPECT_TRUE(r == ReadResult::kReset || r == ReadResult::kEof) << Name(r);
  EXPECT_TRUE(WaitFor([&] { return proxy->stats().resets == 2; }, seconds(5)));
  EXPECT_EQ(proxy->stats().resets, 2u);
  EXPECT_EQ(proxy->stats().active, 0u);

  proxy->ClearFaults();
  Client after(proxy->port());
  ASSERT_TRUE(after.SendAll("back"));
  EXPECT_EQ(after.ReadText(4, seconds(5), &r), "back") << Name(r);
}

TEST(FaultProxyTest, BandwidthLimitSlowsATransfer) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  Client client(proxy->port());
  proxy->SetFaults(ProxyFaults{.bandwidth_bytes_per_second = 100 * 1024});
  const Bytes data = RandomBytes(200 * 1024, 3);
  const auto start = SteadyClock::now();
  Bytes echoed;
  ASSERT_EQ(EchoRoundTrip(client, data, seconds(30), &echoed), ReadResult::kData);
  const auto elapsed = SteadyClock::now() - start;
  EXPECT_TRUE(echoed == data);
  EXPECT_GE(elapsed, milliseconds(1500));
  EXPECT_LT(elapsed, seconds(30));
}

TEST(FaultProxyTest, ScopedFaultRevertsOnScopeExit) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  const ProxyFaults base{.latency = milliseconds(5)};
  proxy->SetFaults(base);
  {
    ScopedProxyFault fault(*proxy, ProxyFaults{.blackhole = true});
    EXPECT_TRUE(proxy->faults().blackhole);
    EXPECT_EQ(proxy->faults().latency, milliseconds(0));
  }
  EXPECT_EQ(proxy->faults(), base);

  // The proxy really forwards again after the revert.
  Client client(proxy->port());
  ReadResult r;
  ASSERT_TRUE(client.SendAll("ok"));
  EXPECT_EQ(client.ReadText(2, seconds(5), &r), "ok") << Name(r);
}

TEST(FaultProxyTest, ScopedFaultRevertsOnException) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  try {
    ScopedProxyFault fault(*proxy, ProxyFaults{.reset = true});
    EXPECT_TRUE(proxy->faults().reset);
    throw std::runtime_error("test body failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(proxy->faults(), ProxyFaults{});
}

TEST(FaultProxyTest, ScopedFaultExplicitRevertHappensOnce) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  const ProxyFaults later{.bandwidth_bytes_per_second = 1000};
  {
    ScopedProxyFault fault(*proxy, ProxyFaults{.blackhole = true});
    fault.Revert();
    EXPECT_EQ(proxy->faults(), ProxyFaults{});
    proxy->SetFaults(later);
  }
  EXPECT_EQ(proxy->faults(), later);  // the destructor did not revert a second time
}

TEST(FaultProxyTest, DestructionWithActiveConnectionsIsCleanAndQuick) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  std::vector<std::unique_ptr<Client>> clients;
  ReadResult r;
  for (int i = 0; i < 8; ++i) {
    clients.push_back(std::make_unique<Client>(proxy->port()));
    ASSERT_TRUE(clients.back()->SendAll("x"));
    ASSERT_EQ(clients.back()->ReadText(1, seconds(5), &r), "x");
  }
  // Leave data held by a long latency and by a blackhole, and timers pending.
  proxy->SetFaults(ProxyFaults{.latency = seconds(30)});
  ASSERT_TRUE(clients[0]->SendAll("held by latency"));
  proxy->SetFaults(ProxyFaults{.latency = seconds(30), .blackhole = true, .bandwidth_bytes_per_second = 10});
  ASSERT_TRUE(clients[1]->SendAll("held by blackhole"));
  Client hanging(proxy->port());
  ASSERT_TRUE(WaitFor([&] { return proxy->stats().accepted == 9 && proxy->stats().active == 9; }, seconds(5)));
  EXPECT_EQ(proxy->stats().active, 9u);

  const auto start = SteadyClock::now();
  proxy.reset();
  EXPECT_LT(SteadyClock::now() - start, seconds(2));

  for (auto& c : clients) {
    c->ReadText(1, seconds(2), &r);
    EXPECT_TRUE(r == ReadResult::kEof || r == ReadResult::kReset) << Name(r);
  }
  hanging.ReadText(1, seconds(2), &r);
  EXPECT_TRUE(r == ReadResult::kEof || r == ReadResult::kReset) << Name(r);
}

TEST(FaultProxyTest, ClosingTheClientClosesTheProxiedConnection) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  ReadResult r;
  {
    Client client(proxy->port());
    ASSERT_TRUE(client.SendAll("bye"));
    ASSERT_EQ(client.ReadText(3, seconds(5), &r), "bye");
    EXPECT_EQ(proxy->stats().active, 1u);
  }
  EXPECT_TRUE(WaitFor([&] { return proxy->stats().active == 0; }, seconds(5)));
  EXPECT_EQ(proxy->stats().active, 0u);
}

TEST(FaultProxyTest, HalfCloseIsForwardedAfterTheHeldData) {
  EchoServer echo;
  auto proxy = StartProxy(echo);
  Client client(proxy->port());
  proxy->SetFaults(ProxyFaults{.latency = milliseconds(100)});
  ASSERT_TRUE(client.SendAll("last words"));
  client.ShutdownWrite();
  ReadResult r;
  EXPECT_EQ(client.ReadText(10, seconds(5), &r), "last words") << Name(r);
  client.ReadText(1, seconds(5), &r);
  EXPECT_EQ(r, ReadResult::kEof) << Name(r);  // the echo server closed after our FIN reached it
}

TEST(FaultProxyTest, UpstreamConnectFailureClosesTheClient) {
  // A port that was just free: nothing listens on it.
  std::uint16_t dead_port = 0;
  {
    asio::io_context io;
    tcp::acceptor probe(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    dead_port = probe.local_endpoint().port();
  }
  auto proxy = FaultProxy::Start("dead", "127.0.0.1", 0, "127.0.0.1", dead_port);
  Client client(proxy->port());
  ReadResult r;
  client.ReadText(1, seconds(5), &r);
  EXPECT_EQ(r, ReadResult::kEof) << Name(r);
  EXPECT_TRUE(WaitFor([&] { return proxy->stats().active == 0; }, seconds(5)));
}

TEST(FaultProxyTest, SetUpstreamAppliesToNewConnections) {
  EchoServer first;
  EchoServer second;
  auto proxy = StartProxy(first);
  ReadResult r;
  Client a(proxy->port());
  ASSERT_TRUE(a.SendAll("a"));
  ASSERT_EQ(a.ReadText(1, seconds(5), &r), "a");

  proxy->SetUpstream("127.0.0.1", second.port());
  Client b(proxy->port());
  ASSERT_TRUE(b.SendAll("b"));
  ASSERT_EQ(b.ReadText(1, seconds(5), &r), "b");
  ASSERT_TRUE(a.SendAll("a2"));
  ASSERT_EQ(a.ReadText(2, seconds(5), &r), "a2");
  EXPECT_EQ(first.accepted(), 1);
  EXPECT_EQ(second.accepted(), 1);
}

TEST(FaultProxyTest, RefusesNonLoopbackHosts) {
  EchoServer echo;
  EXPECT_THROW(FaultProxy::Start("x", "127.0.0.1", 0, "10.0.0.1", echo.port()), std::invalid_argument);
  EXPECT_THROW(FaultProxy::Start("x", "127.0.0.1", 0, "db.example.com", echo.port()), std::invalid_argument);
  EXPECT_THROW(FaultProxy::Start("x", "0.0.0.0", 0, "127.0.0.1", echo.port()), std::invalid_argument);
  EXPECT_THROW(FaultProxy::Start("x", "192.168.0.2", 0, "127.0.0.1", echo.port()), std::invalid_argument);
  auto proxy = StartProxy(echo);
  EXPECT_THROW(proxy->SetUpstream("8.8.8.8", 53), std::invalid_argument);
  // The refused SetUpstream left the old upstream in place.
  Client client(proxy->port());
  ReadResult r;
  ASSERT_TRUE(client.SendAll("still"));
  EXPECT_EQ(client.ReadText(5, seconds(5), &r), "still") << Name(r);
}

}  // namespace
}  // namespace aftershock::cluster
