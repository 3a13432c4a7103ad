// SessionServer: the small HTTP/1.1 server under the request proxy and its control API. One thread
// per connection (bounded by max_connections; the proxy is a fault injector for tests, not a load
// balancer), each with its own io_context so every read, write, connect and wait has a deadline
// (Beast's tcp_stream expiry) and Stop() can cancel all of it at once. A handler sees one request
// at a time and may use the session's io_context for its own upstream calls and waits.
//
//   SessionServer server({.listen = "127.0.0.1:0"}, [](Request& req, Session& s) {
//     Response res{http::status::ok, req.version()};
//     res.body() = "hello";
//     return res;
//   });
//   server.port();
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_SESSION_SERVER_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_SESSION_SERVER_H_

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace aftershock::request_proxy::internal {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// Runs one asynchronous operation on `ioc` to completion and returns its error code.
// `start` receives the completion handler (error_code[, size_t]).
template <class Start>
beast::error_code RunOne(net::io_context& ioc, Start&& start) {
  beast::error_code result = net::error::operation_aborted;
  start([&result](beast::error_code ec, auto&&...) { result = ec; });
  ioc.restart();
  ioc.run();
  return result;
}

// One connection's context, handed to the handler.
class Session {
 public:
  explicit Session(net::io_context& ioc) : ioc_(ioc), timer_(ioc) {}
  net::io_context& ioc() { return ioc_; }
  // Waits `d` on the session's timer; false when the server is stopping (the wait was cut short).
  bool Wait(std::chrono::milliseconds d);
  bool stopping() const { return stopping_.load(); }
  // A keep-alive connection of the handler's own (the proxy's upstream), closed with the session.
  std::optional<beast::tcp_stream> upstream;

 private:
  friend class SessionServer;
  void Cancel();  // on the session's thread (posted by Stop)
  net::io_context& ioc_;
  net::steady_timer timer_;
  std::atomic<bool> stopping_{false};
  beast::tcp_stream* downstream_ = nullptr;
};

struct SessionServerOptions {
  std::string listen = "127.0.0.1:0";             // host:port, loopback only
  int max_connections = 256;                      // more are accepted and closed at once
  std::chrono::milliseconds idle_timeout{120000};  // a connection with no request for this long closes
};

class SessionServer {
 public:
  using Handler = std::function<Response(Request&, Session&)>;
  // Binds (throws std::invalid_argument for a listen address that is not loopback host:port,
  // std::runtime_error when it cannot bind) and starts accepting.
  SessionServer(SessionServerOptions options, Handler handler);
  ~SessionServer();
  SessionServer(const SessionServer&) = delete;
  SessionServer& operator=(const SessionServer&) = delete;

  int port() const { return port_; }
  // Stops accepting, cancels every connection's operations and joins its thread. Idempotent.
  void Stop();

 private:
  struct Connection {
    net::io_context ioc;
    Session session{ioc};
    std::thread thread;
    std::atomic<bool> done{false};
  };
  void AcceptLoop();
  void Serve(Connection& c, net::ip::tcp::socket socket);
  void ReapLocked();

  SessionServerOptions options_;
  Handler handler_;
  net::io_context accept_ioc_;
  net::ip::tcp::acceptor acceptor_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::list<std::unique_ptr<Connection>> connections_;
  std::thread accept_thread_;
};

// "host:port" -> endpoint; throws std::invalid_argument naming the text (and for a non-loopback host).
net::ip::tcp::endpoint LoopbackEndpoint(const std::string& host_port, const std::string& what);

}  // namespace aftershock::request_proxy::internal

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_SESSION_SERVER_H_
