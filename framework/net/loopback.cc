#include "framework/net/loopback.h"

#include <arpa/inet.h>

#include <charconv>
#include <stdexcept>

namespace aftershock::net {

std::optional<HostPort> SplitHostPort(std::string_view host_port, bool allow_port_zero) {
  std::string_view host;
  std::string_view port;
  if (host_port.starts_with('[')) {
    const std::size_t close = host_port.find(']');
    if (close == std::string_view::npos || close + 1 >= host_port.size() || host_port[close + 1] != ':') {
      return std::nullopt;
    }
    host = host_port.substr(1, close - 1);
    port = host_port.substr(close + 2);
  } else {
    const std::size_t colon = host_port.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    host = host_port.substr(0, colon);
    port = host_port.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return std::nullopt;  // bare IPv6 needs brackets
  }
  if (host.empty() || port.empty()) return std::nullopt;
  int value = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (error != std::errc() || end != port.data() + port.size() || value < (allow_port_zero ? 0 : 1) || value > 65535) return std::nullopt;
  return HostPort{std::string(host), value};
}

bool IsLoopbackHost(std::string_view host) {
  if (host.starts_with('[') && host.ends_with(']') && host.size() > 2) host = host.substr(1, host.size() - 2);
  if (host == "localhost") return true;
  const std::string text(host);
  in_addr v4{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, text.c_str(), &v6) == 1) {
    static const in6_addr loopback = IN6ADDR_LOOPBACK_INIT;
    return IN6_ARE_ADDR_EQUAL(&v6, &loopback);
  }
  return false;
}

bool IsLoopbackAddress(std::string_view host_port, bool allow_port_zero) {
  const std::optional<HostPort> parsed = SplitHostPort(host_port, allow_port_zero);
  return parsed && IsLoopbackHost(parsed->host);
}

void RequireLoopbackAddress(std::string_view host_port, std::string_view what) {
  const std::string quoted = std::string(what) + ": '" + std::string(host_port) + "'";
  if (!SplitHostPort(host_port)) throw std::invalid_argument(quoted + " is not host:port");
  if (!IsLoopbackAddress(host_port)) {
    throw std::invalid_argument(quoted +
                                " is not a loopback address (load and faults go to 127.0.0.0/8, [::1] or "
                                "localhost unless a target is explicitly allowed)");
  }
}

}  // namespace aftershock::net
