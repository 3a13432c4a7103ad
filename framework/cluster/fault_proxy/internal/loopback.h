// Loopback-only address parsing: the proxy must never listen on or forward to a non-loopback host.
//
//   boost::asio::ip::address_v4 a = ParseLoopbackHost("127.0.0.1");  // ok
//   ParseLoopbackHost("10.0.0.1");                                   // throws std::invalid_argument
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_LOOPBACK_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_LOOPBACK_H_

#include <string>

#include <boost/asio/ip/address_v4.hpp>

namespace aftershock::cluster::internal {

// Accepts "localhost" (as 127.0.0.1) and IPv4 literals in 127.0.0.0/8; throws std::invalid_argument
// for anything else, including names, IPv6 and 0.0.0.0.
boost::asio::ip::address_v4 ParseLoopbackHost(const std::string& host);

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_FAULT_PROXY_INTERNAL_LOOPBACK_H_
