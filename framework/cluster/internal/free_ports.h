// Picking loopback TCP ports for the embedded cluster's services.
//
// A port is "free" when a listening socket can be bound to it right now (without SO_REUSEADDR).
// There is an unavoidable window between the check and the service's own bind; the services report
// a bind failure in their logs, which the readiness error quotes.
//
//   std::optional<int> base = FindFreePortBlock("127.0.0.1", 8, 20000, 60000, 64);
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_FREE_PORTS_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_FREE_PORTS_H_

#include <optional>
#include <string>

namespace aftershock::cluster::internal {

// True when a TCP listener can be bound to host:port at this moment.
bool PortBindable(const std::string& host, int port);

// The first port of `count` consecutive bindable ports in [low, high), trying at most `attempts`
// randomly chosen starting points. nullopt when none was found.
std::optional<int> FindFreePortBlock(const std::string& host, int count, int low, int high,
                                     int attempts);

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_FREE_PORTS_H_
