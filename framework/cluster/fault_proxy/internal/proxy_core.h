// ProxyCore: the state one FaultProxy shares with its connections.
//
// Everything except the atomics and `upstream` (guarded by its mutex) is touched only on the proxy's
// io thread, so connections need no locks of their own.
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_PROXY_CORE_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_PROXY_CORE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <unordered_map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "framework/cluster/fault_proxy/fault_proxy.h"

namespace aftershock::cluster::internal {

class Connection;

struct ProxyCore {
  explicit ProxyCore(boost::asio::io_context& io_context, std::uint64_t seed) : io(io_context), rng(seed) {}

  // When a chunk read at `arrival` may be forwarded: arrival + latency +/- jitter, never before
  // `arrival` and never before the previous chunk of the same direction (`previous`).
  std::chrono::steady_clock::time_point ReleaseTime(std::chrono::steady_clock::time_point arrival,
                                                    std::chrono::steady_clock::time_point previous) {
    auto delay = std::chrono::duration_cast<std::chrono::steady_clock::duration>(faults.latency);
    if (faults.jitter.count() > 0) {
      const auto j = std::chrono::duration_cast<std::chrono::microseconds>(faults.jitter).count();
      std::uniform_int_distribution<std::int64_t> offset(-j, j);
      delay += std::chrono::microseconds(offset(rng));
    }
    if (delay.count() < 0) delay = std::chrono::steady_clock::duration::zero();
    return std::max(arrival + delay, previous);
  }

  boost::asio::ip::tcp::endpoint Upstream() {
    std::lock_guard lock(upstream_mu);
    return upstream;
  }

  boost::asio::io_context& io;
  ProxyFaults faults;  // the io thread's copy, updated by SetFaults through a posted task
  std::mt19937_64 rng;
  bool stopping = false;
  std::unordered_map<Connection*, std::shared_ptr<Connection>> connections;

  std::mutex upstream_mu;
  boost::asio::ip::tcp::endpoint upstream;

  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> active{0};
  std::atomic<std::uint64_t> bytes_up{0};
  std::atomic<std::uint64_t> bytes_down{0};
  std::atomic<std::uint64_t> resets{0};
};

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_PROXY_CORE_H_
