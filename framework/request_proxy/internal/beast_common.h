// Shared pieces of the request proxy's Asio/Beast servers (internal): resolving a loopback
// "host:port" to an endpoint and a coroutine sleep.
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_BEAST_COMMON_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_BEAST_COMMON_H_

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <stdexcept>
#include <string>

#include "framework/net/loopback.h"

namespace aftershock::request_proxy::internal {

// "127.0.0.1:80", "[::1]:80", "localhost:80" -> endpoint; throws std::invalid_argument naming `what`.
inline boost::asio::ip::tcp::endpoint LoopbackEndpoint(const std::string& host_port, const std::string& what,
                                                       bool allow_port_zero) {
  if (!allow_port_zero) net::RequireLoopbackAddress(host_port, what);
  if (allow_port_zero && !net::IsLoopbackAddress(host_port, true)) {
    throw std::invalid_argument(what + ": '" + host_port + "' is not a loopback host:port");
  }
  const auto split = net::SplitHostPort(host_port, allow_port_zero);
  if (!split) throw std::invalid_argument(what + ": '" + host_port + "' is not host:port");
  const std::string host = split->host == "localhost" ? "127.0.0.1" : split->host;
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(host, ec);
  if (ec) throw std::invalid_argument(what + ": '" + host_port + "' has no IP literal host");
  return {address, static_cast<unsigned short>(split->port)};
}

inline boost::asio::awaitable<void> Sleep(std::chrono::milliseconds delay) {
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
  timer.expires_after(delay);
  boost::system::error_code ec;
  co_await timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
}

}  // namespace aftershock::request_proxy::internal

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_BEAST_COMMON_H_
