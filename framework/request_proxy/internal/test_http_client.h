// A blocking keep-alive HTTP/1.1 client for the request proxy's tests (test-only): one connection,
// one request at a time, so the tests count answers at the client.
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_TEST_HTTP_CLIENT_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_TEST_HTTP_CLIENT_H_

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <chrono>
#include <string>

namespace aftershock::request_proxy::internal {

class TestHttpClient {
 public:
  using Response = boost::beast::http::response<boost::beast::http::string_body>;
  explicit TestHttpClient(int port) : port_(port) {}

  // Reconnects when the server closed the connection (once per call).
  Response Get(const std::string& target) {
    namespace http = boost::beast::http;
    for (int attempt = 0;; ++attempt) {
      try {
        if (!stream_) Connect();
        http::request<http::string_body> request{http::verb::get, target, 11};
        request.set(http::field::host, "127.0.0.1");
        request.keep_alive(true);
        stream_->expires_after(std::chrono::seconds(10));
        http::write(*stream_, request);
        Response response;
        http::read(*stream_, buffer_, response);
        if (!response.keep_alive()) stream_.reset();
        return response;
      } catch (const std::exception&) {
        stream_.reset();
        buffer_.clear();
        if (attempt >= 1) throw;
      }
    }
  }

 private:
  void Connect() {
    stream_.emplace(io_);
    stream_->connect(boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"),
                                                    static_cast<unsigned short>(port_)));
    stream_->socket().set_option(boost::asio::ip::tcp::no_delay(true));
  }

  int port_;
  boost::asio::io_context io_;
  std::optional<boost::beast::tcp_stream> stream_;
  boost::beast::flat_buffer buffer_;
};

}  // namespace aftershock::request_proxy::internal

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_TEST_HTTP_CLIENT_H_
