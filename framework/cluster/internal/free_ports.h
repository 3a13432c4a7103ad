// Picking loopback TCP ports for the embedded cluster's services.
//
// A port is "free" when a listening socket can be bound to it right now (without SO_REUSEADDR).
// There is an unavoidable window between the check and the service's own bind; the services report
// a bind failure in their logs, which the readiness error quotes. The window matters most inside the
// kernel's ephemeral range, where every outgoing connection (another test's client, a replica's
// connection to the database) takes a port: a block is picked outside that range wherever the
// caller's range allows (a tests run saw "PostgreSQL port 39689 ... is not bindable" between the
// pick and the check).
//
//   std::optional<int> base = FindFreePortBlock("127.0.0.1", 8, 20000, 60000, 64);
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_FREE_PORTS_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_FREE_PORTS_H_

#include <optional>
#include <string>
#include <utility>

namespace aftershock::cluster::internal {

// True when a TCP listener can be bound to host:port at this moment.
bool PortBindable(const std::string& host, int port);

// The kernel's range for the local ports of outgoing connections, both ends included: the two
// numbers of `path` (/proc/sys/net/ipv4/ip_local_port_range); Linux's default 32768-60999 when it
// cannot be read.
std::pair<int, int> EphemeralPortRange(const std::string& path = "/proc/sys/net/ipv4/ip_local_port_range");

// The first port of `count` consecutive bindable ports in [low, high), trying at most `attempts`
// randomly chosen starting points. The blocks that stay clear of `ephemeral` (default:
// EphemeralPortRange()) are the candidates; only where [low, high) holds none is every block one.
// nullopt when none was found.
std::optional<int> FindFreePortBlock(const std::string& host, int count, int low, int high, int attempts,
                                     std::pair<int, int> ephemeral);
std::optional<int> FindFreePortBlock(const std::string& host, int count, int low, int high,
                                     int attempts);

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_FREE_PORTS_H_
