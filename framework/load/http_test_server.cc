#include "framework/load/http_test_server.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <atomic>
#include <thread>

namespace aftershock::load {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, const HttpTestServer::Handler& handler, std::atomic<int>& requests)
      : stream_(std::move(socket)), timer_(stream_.get_executor()), handler_(handler), requests_(requests) {}

  void Read() {
    request_ = {};
    http::async_read(stream_, buffer_, request_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->stream_.close();
      self->requests_.fetch_add(1);
      HttpRequest request;
      request.method = std::string(self->request_.method_string());
      request.target = std::string(self->request_.target());
      request.body = self->request_.body();
      const TestReply reply = self->handler_(request);
      self->response_ = {};
      self->response_.version(11);
      self->response_.result(static_cast<unsigned>(reply.status));
      self->response_.set(http::field::content_type, "text/plain");
      for (const auto& [name, value] : reply.headers) self->response_.set(name, value);
      self->response_.body() = reply.body;
      self->response_.keep_alive(!reply.close && self->request_.keep_alive());
      self->response_.prepare_payload();
      self->close_after_write_ = reply.close_silently;
      self->timer_.expires_after(reply.delay);
      self->timer_.async_wait([self](beast::error_code) { self->Write(); });
    });
  }

 private:
  void Write() {
    http::async_write(stream_, response_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec || !self->response_.keep_alive() || self->close_after_write_) {
        beast::error_code ignored;
        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        return self->stream_.close();
      }
      self->Read();
    });
  }

  beast::tcp_stream stream_;
  net::steady_timer timer_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
  bool close_after_write_ = false;
  const HttpTestServer::Handler& handler_;
  std::atomic<int>& requests_;
};

}  // namespace

class HttpTestServer::Impl {
 public:
  explicit Impl(Handler handler)
      : handler_(std::move(handler)), acceptor_(ioc_, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0)) {
    Accept();
    thread_ = std::thread([this] { ioc_.run(); });
  }
  ~Impl() {
    ioc_.stop();
    thread_.join();
  }
  int port() const { return acceptor_.local_endpoint().port(); }

  Handler handler_;
  std::atomic<int> accepted_{0}, requests_{0};

 private:
  void Accept() {
    acceptor_.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec) return;
      accepted_.fetch_add(1);
      std::make_shared<Session>(std::move(socket), handler_, requests_)->Read();
      Accept();
    });
  }

  net::io_context ioc_;  // before the acceptor: destroyed after it
  tcp::acceptor acceptor_;
  std::thread thread_;
};

HttpTestServer::HttpTestServer(Handler handler) : impl_(std::make_unique<Impl>(std::move(handler))) {}
HttpTestServer::~HttpTestServer() = default;
int HttpTestServer::port() const { return impl_->port(); }
int HttpTestServer::accepted_connections() const { return impl_->accepted_.load(); }
int HttpTestServer::requests() const { return impl_->requests_.load(); }

int FreeLoopbackPort() {
  net::io_context ioc;
  net::ip::tcp::acceptor acceptor(ioc, net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

}  // namespace aftershock::load
