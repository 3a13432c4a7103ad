// FaultProxy: a Toxiproxy-like TCP proxy that sits in front of a database instance so that tests can
// inject network faults (latency, jitter, blackhole, reset, bandwidth) without kernel netem.
//
// Every byte a client sends is forwarded to the upstream and back, unchanged and in order; faults only
// delay, hold or cut the flow. Only loopback (127.0.0.0/8) addresses are accepted, as a safety rule.
//
//   auto proxy = FaultProxy::Start("pg-primary", "127.0.0.1", 0, "127.0.0.1", 5432);
//   connect_database("127.0.0.1", proxy->port());
//   {
//     ScopedProxyFault slow(*proxy, ProxyFaults{.latency = std::chrono::milliseconds(200)});
//     ...  // every chunk now takes >= 200 ms each way
//   }      // faults revert here, even if the block throws
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_FAULT_PROXY_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_FAULT_PROXY_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace aftershock::cluster {

struct ProxyFaults {
  // Added to every chunk forwarded, in each direction. A chunk keeps the delay it was given when it
  // arrived; a change applies to chunks that arrive after it.
  std::chrono::milliseconds latency{0};
  // Uniform +/- jitter on top of latency (the total delay is never negative); order is preserved per
  // direction, so a chunk never overtakes an earlier one.
  std::chrono::milliseconds jitter{0};
  // Connections stay open but nothing is forwarded (new ones are accepted and hang): clients see
  // timeouts, not resets. When lifted, the held data flows again, like a healed partition.
  bool blackhole = false;
  // Existing connections are reset (RST) and new ones are reset on accept.
  bool reset = false;
  // 0 = unlimited; a token bucket per direction per connection.
  std::uint64_t bandwidth_bytes_per_second = 0;

  friend bool operator==(const ProxyFaults&, const ProxyFaults&) = default;
};

namespace internal {
class ProxyImpl;
}  // namespace internal

class FaultProxy {
 public:
  struct Stats {
    std::uint64_t accepted = 0;    // client connections accepted (including ones reset on accept)
    std::uint64_t active = 0;      // connections currently open
    std::uint64_t bytes_up = 0;    // bytes written to the upstream (client -> database)
    std::uint64_t bytes_down = 0;  // bytes written to clients (database -> client)
    std::uint64_t resets = 0;      // connections closed with RST by the reset fault
  };

  // Listens on listen_host:listen_port (port 0 = pick one) and forwards to upstream_host:upstream_port.
  // Hosts must be IPv4 loopback literals or "localhost"; anything else throws std::invalid_argument.
  // A listen failure throws boost::system::system_error (a std::runtime_error).
  static std::unique_ptr<FaultProxy> Start(std::string name, std::string listen_host, std::uint16_t listen_port,
                                           std::string upstream_host, std::uint16_t upstream_port);

  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;
  // Closes the acceptor and every connection and joins the proxy thread; bounded in time.
  ~FaultProxy();

  std::uint16_t port() const;
  const std::string& name() const;

  // Takes effect at once for existing and new connections: when it returns, the proxy thread has
  // applied the faults (bounded wait).
  void SetFaults(const ProxyFaults& faults);
  ProxyFaults faults() const;
  void ClearFaults();

  // Upstream for new connections; existing ones keep theirs. Loopback only (throws otherwise).
  void SetUpstream(std::string host, std::uint16_t port);

  Stats stats() const;

 private:
  explicit FaultProxy(std::unique_ptr<internal::ProxyImpl> impl);

  std::unique_ptr<internal::ProxyImpl> impl_;
};

// RAII fault: applies on construction, restores the faults that were set before on destruction (or on
// an earlier Revert()), even when the scope is left by an exception. The proxy must outlive it.
class ScopedProxyFault {
 public:
  ScopedProxyFault(FaultProxy& proxy, ProxyFaults faults);
  ScopedProxyFault(const ScopedProxyFault&) = delete;
  ScopedProxyFault& operator=(const ScopedProxyFault&) = delete;
  ~ScopedProxyFault();

  // Restores the previous faults now; later calls and the destructor do nothing.
  void Revert();

 private:
  FaultProxy* proxy_;
  ProxyFaults previous_;
  bool reverted_ = false;
};

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_FAULT_PROXY_H_
