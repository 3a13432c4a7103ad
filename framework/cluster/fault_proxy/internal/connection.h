// Connection: one proxied client connection (client socket + upstream socket) and its two directions.
//
// Each direction reads chunks from its source into a queue stamped with a release time (latency and
// jitter) and writes them to its destination in order, when released, not blackholed and allowed by
// the token bucket. Reading stops while the queue holds kMaxQueuedBytes, so TCP back-pressure reaches
// the sender instead of the proxy buffering without bound. All methods run on the proxy's io thread.
//
//   auto c = std::make_shared<Connection>(core, std::move(client_socket));
//   core.connections[c.get()] = c;
//   c->Start();
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_CONNECTION_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_CONNECTION_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "framework/cluster/fault_proxy/internal/proxy_core.h"
#include "framework/cluster/fault_proxy/internal/token_bucket.h"

namespace aftershock::cluster::internal {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  static constexpr std::size_t kReadChunkBytes = 16 * 1024;
  static constexpr std::size_t kMaxQueuedBytes = 1024 * 1024;

  Connection(ProxyCore& core, boost::asio::ip::tcp::socket client);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Starts reading from the client and connects upstream (deferred while blackholed).
  void Start();
  // Re-evaluates held data after SetFaults; resets the connection if the reset fault is on.
  void OnFaultsChanged();
  // Closes both sockets with SO_LINGER 0, so both peers see RST.
  void Reset();
  // Closes both sockets normally and leaves the proxy's connection table.
  void Close();

 private:
  struct Chunk {
    std::vector<std::uint8_t> data;
    std::size_t offset = 0;
    std::chrono::steady_clock::time_point release;
  };
  struct Direction {
    Direction(boost::asio::ip::tcp::socket& source, boost::asio::ip::tcp::socket& destination,
              std::atomic<std::uint64_t>& forwarded_bytes, boost::asio::io_context& io);
    boost::asio::ip::tcp::socket& src;
    boost::asio::ip::tcp::socket& dst;
    std::atomic<std::uint64_t>& forwarded;
    boost::asio::steady_timer timer;
    TokenBucket bucket;
    std::deque<Chunk> queue;
    std::size_t queued_bytes = 0;
    std::chrono::steady_clock::time_point last_release{};
    bool reading = false;
    bool src_eof = false;
    bool writing = false;
    bool timer_armed = false;
    bool dst_shut = false;
    std::array<std::uint8_t, kReadChunkBytes> buffer{};
  };

  void ConnectUpstream();
  bool SourceReady(const Direction& d) const;
  bool DestinationReady(const Direction& d) const;
  void Read(Direction& d);
  void Pump(Direction& d);
  void ArmTimer(Direction& d, std::chrono::steady_clock::time_point at);
  void MaybeFinish();

  ProxyCore& core_;
  boost::asio::ip::tcp::socket client_;
  boost::asio::ip::tcp::socket upstream_;
  Direction up_;    // client -> upstream
  Direction down_;  // upstream -> client
  bool connecting_ = false;
  bool upstream_connected_ = false;
  bool closed_ = false;
};

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_CONNECTION_H_
