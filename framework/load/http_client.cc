#include "framework/load/http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "framework/load/grpc_channel.h"

namespace aftershock::load {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool HttpFieldNameEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

const std::string* FindHttpHeader(std::span<const std::pair<std::string, std::string>> headers,
                                  std::string_view name) {
  for (const auto& [field, value] : headers) {
    if (HttpFieldNameEquals(field, name)) return &value;
  }
  return nullptr;
}

HttpHostPort ParseHttpHostPort(const std::string& host_port, bool allow_non_loopback) {
  const auto colon = host_port.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == host_port.size()) {
    throw std::invalid_argument("HTTP target '" + host_port + "' is not host:port");
  }
  std::string host = host_port.substr(0, colon);
  if (host.front() == '[') {
    if (host.back() != ']') throw std::invalid_argument("HTTP target '" + host_port + "' is not host:port");
    host = host.substr(1, host.size() - 2);
  }
  const std::string port_text = host_port.substr(colon + 1);
  if (port_text.size() > 5 || !std::all_of(port_text.begin(), port_text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    throw std::invalid_argument("HTTP target '" + host_port + "' has a bad port");
  }
  const int port = std::stoi(port_text);
  if (port <= 0 || port > 65535) throw std::invalid_argument("HTTP target '" + host_port + "' has a bad port");
  if (!allow_non_loopback && !IsLoopbackAddress(host_port)) {
    throw std::invalid_argument("HTTP target '" + host_port +
                                "' is not a loopback address (load goes to 127.0.0.0/8 unless explicitly allowed)");
  }
  return {host, static_cast<std::uint16_t>(port)};
}

HttpReply HttpFetch(const std::string& host_port, const HttpRequest& request, std::chrono::milliseconds timeout,
                    bool allow_non_loopback) {
  const HttpHostPort target = ParseHttpHostPort(host_port, allow_non_loopback);
  HttpReply reply;
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  beast::flat_buffer buffer;
  http::request<http::string_body> req;
  http::response<http::string_body> res;
  req.method_string(request.method);
  req.target(request.target);
  req.version(11);
  req.set(http::field::host, host_port);
  req.set(http::field::user_agent, "aftershock");
  req.set(http::field::connection, "close");
  for (const auto& [name, value] : request.headers) req.set(name, value);
  req.body() = request.body;
  req.prepare_payload();

  auto fail = [&](const char* step, beast::error_code ec) {
    const std::string_view s = step;
    reply.sent = s == "write" || s == "read";
    reply.timed_out = ec == beast::error::timeout;
    reply.error = std::string(step) + " " + host_port + request.target + ": " +
                  (ec == beast::error::timeout ? "timed out after " + std::to_string(timeout.count()) + " ms"
                                               : ec.message());
  };
  stream.expires_after(timeout);
  auto exchange = [&](beast::error_code ec) {
    if (ec) return fail("connect", ec);
    http::async_write(stream, req, [&](beast::error_code ec, std::size_t) {
      if (ec) return fail("write", ec);
      http::async_read(stream, buffer, res, [&](beast::error_code ec, std::size_t) {
        if (ec) return fail("read", ec);
        reply.status = static_cast<int>(res.result_int());
        for (const auto& field : res) reply.headers.emplace_back(field.name_string(), field.value());
        reply.body = std::move(res.body());
      });
    });
  };
  // An address literal (every loopback target) needs no resolver: Asio's asynchronous resolve
  // starts a thread per io_context, which a blocking client calling this per request would pay
  // every time.
  beast::error_code literal_ec;
  const net::ip::address literal = net::ip::make_address(target.host, literal_ec);
  tcp::resolver resolver(ioc);
  if (!literal_ec) {
    stream.async_connect(tcp::endpoint(literal, target.port), exchange);
  } else {
    resolver.async_resolve(target.host, std::to_string(target.port),
                           [&](beast::error_code ec, tcp::resolver::results_type results) {
                             if (ec) return fail("resolve", ec);
                             stream.async_connect(results, [&](beast::error_code ec, const tcp::endpoint&) { exchange(ec); });
                           });
  }
  ioc.run();  // Bounded: every step is under the stream's timeout.
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return reply;
}

CallCode HttpReplyCode(const HttpReply& reply) {
  if (reply.status != 0) return reply.status;
  if (!reply.sent) return ClientFailureCode(ClientFailure::kBeforeSend);
  return ClientFailureCode(reply.timed_out ? ClientFailure::kTimedOut : ClientFailure::kAfterSend);
}

bool WaitForHealthy(const std::string& host_port, const std::string& path, std::chrono::seconds bound,
                    std::string* last_error, bool allow_non_loopback) {
  using SteadyClock = std::chrono::steady_clock;
  const auto start = SteadyClock::now();
  const auto deadline = start + bound;
  HttpRequest request;
  request.target = path;
  std::string last = "no attempt made";
  int attempts = 0;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    if (left.count() <= 0 && attempts > 0) break;
    ++attempts;
    const HttpReply reply =
        HttpFetch(host_port, request, std::clamp(left, std::chrono::milliseconds(50), std::chrono::milliseconds(1000)),
                  allow_non_loopback);
    if (reply.status == 200) return true;
    last = reply.status != 0 ? "GET " + host_port + path + " answered " + std::to_string(reply.status) : reply.error;
    if (SteadyClock::now() + std::chrono::milliseconds(100) >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (last_error != nullptr) {
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - start);
    *last_error = "target " + host_port + " not healthy (no 200 from GET " + path + ") within " +
                  std::to_string(bound.count()) + " s: " + std::to_string(attempts) + " attempts in " +
                  std::to_string(waited.count()) + " ms, last: " + last;
  }
  return false;
}

}  // namespace aftershock::load
