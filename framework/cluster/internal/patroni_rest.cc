#include "framework/cluster/internal/patroni_rest.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/version.hpp>

#include <memory>

namespace aftershock::cluster::internal {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// One request's state. Beast's synchronous calls ignore tcp_stream timeouts, so the exchange runs
// as a chain of async operations on a private io_context that is run to completion; the stream's
// expiry cancels whatever step is pending when the deadline passes.
struct Exchange {
  explicit Exchange(asio::io_context& ioc) : stream(ioc) {}
  beast::tcp_stream stream;
  beast::flat_buffer buffer;
  http::request<http::empty_body> request;
  http::response<http::string_body> response;
  HttpResult result;
};

}  // namespace

HttpResult HttpGet(const std::string& host, int port, const std::string& target,
                   std::chrono::milliseconds timeout) {
  asio::io_context ioc;
  auto exchange = std::make_shared<Exchange>(ioc);
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) {
    exchange->result.error = "bad address '" + host + "': " + ec.message();
    return exchange->result;
  }
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  exchange->request = http::request<http::empty_body>(http::verb::get, target, 11);
  exchange->request.set(http::field::host, host + ":" + std::to_string(port));
  exchange->request.set(http::field::user_agent, "aftershock-cluster");
  exchange->request.set(http::field::connection, "close");

  exchange->stream.expires_after(timeout);
  exchange->stream.async_connect(endpoint, [exchange](beast::error_code connect_ec) {
    if (connect_ec) {
      exchange->result.error = "connect: " + connect_ec.message();
      return;
    }
    http::async_write(
        exchange->stream, exchange->request,
        [exchange](beast::error_code write_ec, std::size_t) {
          if (write_ec) {
            exchange->result.error = "write: " + write_ec.message();
            return;
          }
          http::async_read(exchange->stream, exchange->buffer, exchange->response,
                           [exchange](beast::error_code read_ec, std::size_t) {
                             if (read_ec) {
                               exchange->result.error = "read: " + read_ec.message();
                               return;
                             }
                             exchange->result.status =
                                 static_cast<int>(exchange->response.result_int());
                             exchange->result.body = exchange->response.body();
                           });
        });
  });
  ioc.run();
  beast::error_code ignored;
  exchange->stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return exchange->result;
}

}  // namespace aftershock::cluster::internal
