// The one loopback rule (DESIGN.md, safety rules): load and fault traffic go to loopback unless a
// target is explicitly allowed. Every place that checks an address (gRPC channels, the HTTP load
// client, the fault proxy, the reference targets' --listen) asks these functions, so the rule is the
// same everywhere: 127.0.0.0/8 as an IPv4 literal, the IPv6 loopback ::1, or the name "localhost".
// 0.0.0.0, other names, other addresses and malformed text are not loopback.
//
//   net::IsLoopbackHost("127.0.0.2");                 // true
//   net::IsLoopbackAddress("[::1]:8080");             // true
//   net::IsLoopbackAddress("10.0.0.1:80");            // false
//   net::RequireLoopbackAddress("db:5432", "gRPC channel");
//   // throws std::invalid_argument: gRPC channel: 'db:5432' is not a loopback address (...)
#ifndef AFTERSHOCK_FRAMEWORK_NET_LOOPBACK_H_
#define AFTERSHOCK_FRAMEWORK_NET_LOOPBACK_H_

#include <optional>
#include <string>
#include <string_view>

namespace aftershock::net {

struct HostPort {
  std::string host;  // without brackets: "127.0.0.1", "::1", "localhost"
  int port = 0;      // 1..65535 (0 only where allowed)
};

// "host:port" or "[v6]:port"; nullopt for anything else (no port, port > 65535, junk, and port 0
// unless `allow_port_zero`: a listen address where 0 means "any free port").
std::optional<HostPort> SplitHostPort(std::string_view host_port, bool allow_port_zero = false);

// A host (no port): 127.0.0.0/8 literal, "::1" (bracketed or not), or "localhost".
bool IsLoopbackHost(std::string_view host);

// A "host:port" whose host is loopback.
bool IsLoopbackAddress(std::string_view host_port, bool allow_port_zero = false);

// Throws std::invalid_argument "<what>: '<host_port>' is not a loopback address (...)" unless
// IsLoopbackAddress, or "<what>: '<host_port>' is not host:port" when it does not parse.
void RequireLoopbackAddress(std::string_view host_port, std::string_view what);

}  // namespace aftershock::net

#endif  // AFTERSHOCK_FRAMEWORK_NET_LOOPBACK_H_
