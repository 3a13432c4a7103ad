#include "framework/alerting/internal/loopback_http_server.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <stdexcept>
#include <thread>

namespace aftershock::alerting::internal {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// One connection: read a request, answer it, repeat while the peer keeps the connection alive.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, const LoopbackHttpServer::Handler* handler)
      : stream_(std::move(socket)), handler_(handler) {}

  void Read() {
    request_ = {};
    // Idle keep-alive connections are closed after a while; Alertmanager simply reconnects.
    stream_.expires_after(std::chrono::seconds(60));
    http::async_read(stream_, buffer_, request_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec) return;  // closed, timed out or shut down
                       self->Answer();
                     });
  }

 private:
  void Answer() {
    ServerRequest request{std::string(request_.method_string()), std::string(request_.target()),
                          request_.body()};
    ServerResponse answer;
    try {
      answer = (*handler_)(request);
    } catch (const std::exception& e) {
      answer = ServerResponse{500, "text/plain; charset=utf-8", e.what()};
    }
    response_ = http::response<http::string_body>(static_cast<http::status>(answer.status),
                                                  request_.version());
    response_.set(http::field::content_type, answer.content_type);
    response_.keep_alive(request_.keep_alive());
    response_.body() = std::move(answer.body);
    response_.prepare_payload();
    stream_.expires_after(std::chrono::seconds(10));
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return;
                        if (!self->response_.keep_alive()) {
                          beast::error_code ignored;
                          self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                          return;
                        }
                        self->Read();
                      });
  }

  beast::tcp_stream stream_;
  const LoopbackHttpServer::Handler* handler_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
};

}  // namespace

struct LoopbackHttpServer::State {
  explicit State(Handler h) : handler(std::move(h)), acceptor(ioc) {}

  void Accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec) return;  // the acceptor was closed
      std::make_shared<Session>(std::move(socket), &handler)->Read();
      Accept();
    });
  }

  Handler handler;
  asio::io_context ioc;
  tcp::acceptor acceptor;
  std::thread thread;
};

LoopbackHttpServer::LoopbackHttpServer(Handler handler)
    : state_(std::make_unique<State>(std::move(handler))) {
  beast::error_code ec;
  const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  state_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) state_->acceptor.bind(endpoint, ec);
  if (!ec) state_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("LoopbackHttpServer: cannot listen on 127.0.0.1: " + ec.message());
  port_ = state_->acceptor.local_endpoint().port();
  state_->Accept();
  State* state = state_.get();
  state_->thread = std::thread([state] { state->ioc.run(); });
}

LoopbackHttpServer::~LoopbackHttpServer() { Stop(); }

void LoopbackHttpServer::Stop() {
  if (!state_ || !state_->thread.joinable()) return;
  State* state = state_.get();
  asio::post(state->ioc, [state] {
    beast::error_code ignored;
    state->acceptor.close(ignored);
    state->ioc.stop();
  });
  state_->thread.join();
  // Destroying the io_context (with State) destroys the pending handlers, and with them the
  // sessions and their sockets.
}

}  // namespace aftershock::alerting::internal
