#include "framework/request_proxy/internal/session_server.h"

#include <boost/asio/ip/address.hpp>
#include <stdexcept>

#include "framework/net/loopback.h"

namespace aftershock::request_proxy::internal {

net::ip::tcp::endpoint LoopbackEndpoint(const std::string& host_port, const std::string& what) {
  const auto hp = ::aftershock::net::SplitHostPort(host_port, /*allow_port_zero=*/true);
  if (!hp) throw std::invalid_argument(what + ": '" + host_port + "' is not host:port");
  if (!::aftershock::net::IsLoopbackHost(hp->host)) {
    throw std::invalid_argument(what + ": '" + host_port + "' is not a loopback address (127.0.0.0/8, ::1, localhost)");
  }
  const std::string host = hp->host == "localhost" ? "127.0.0.1" : hp->host;
  beast::error_code ec;
  const auto address = net::ip::make_address(host, ec);
  if (ec) throw std::invalid_argument(what + ": '" + host_port + "': " + ec.message());
  return {address, static_cast<unsigned short>(hp->port)};
}

bool Session::Wait(std::chrono::milliseconds d) {
  if (stopping_.load()) return false;
  timer_.expires_after(d);
  const beast::error_code ec = RunOne(ioc_, [this](auto handler) { timer_.async_wait(std::move(handler)); });
  return !ec && !stopping_.load();
}

void Session::Cancel() {
  stopping_.store(true);
  timer_.cancel();
  beast::error_code ignored;
  if (downstream_) downstream_->socket().close(ignored);
  if (upstream) upstream->socket().close(ignored);
}

SessionServer::SessionServer(SessionServerOptions options, Handler handler)
    : options_(std::move(options)), handler_(std::move(handler)), acceptor_(accept_ioc_) {
  if (!handler_) throw std::invalid_argument("SessionServer: no handler");
  if (options_.max_connections < 1) throw std::invalid_argument("SessionServer: max_connections must be >= 1");
  const net::ip::tcp::endpoint endpoint = LoopbackEndpoint(options_.listen, "listen");
  beast::error_code ec;
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("cannot listen on " + options_.listen + ": " + ec.message());
  port_ = acceptor_.local_endpoint().port();
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

SessionServer::~SessionServer() { Stop(); }

void SessionServer::Stop() {
  if (stopping_.exchange(true)) {
    if (accept_thread_.joinable()) accept_thread_.join();
    return;
  }
  // Wakes the blocking accept (Linux: shutdown on a listening socket makes accept fail).
  ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
  if (accept_thread_.joinable()) accept_thread_.join();
  std::list<std::unique_ptr<Connection>> connections;
  {
    std::lock_guard lock(mu_);
    connections.swap(connections_);
  }
  for (auto& c : connections) {
    Session* s = &c->session;
    s->stopping_.store(true);
    net::post(c->ioc, [s] { s->Cancel(); });
  }
  for (auto& c : connections) {
    if (c->thread.joinable()) c->thread.join();
  }
  beast::error_code ignored;
  acceptor_.close(ignored);
}

void SessionServer::ReapLocked() {
  for (auto it = connections_.begin(); it != connections_.end();) {
    if ((*it)->done.load()) {
      if ((*it)->thread.joinable()) (*it)->thread.join();
      it = connections_.erase(it);
    } else {
      ++it;
    }
  }
}

void SessionServer::AcceptLoop() {
  // Bounded by the stop flag: every iteration is one accepted connection or an error.
  while (!stopping_.load()) {
    auto c = std::make_unique<Connection>();
    beast::error_code ec;
    net::ip::tcp::socket socket = acceptor_.accept(c->ioc, ec);
    if (stopping_.load()) break;
    if (ec) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // e.g. EMFILE: do not spin
      continue;
    }
    std::lock_guard lock(mu_);
    ReapLocked();
    if (static_cast<int>(connections_.size()) >= options_.max_connections) {
      socket.close(ec);  // over the bound: refused by closing
      continue;
    }
    Connection* raw = c.get();
    connections_.push_back(std::move(c));
    raw->thread = std::thread([this, raw, s = std::move(socket)]() mutable { Serve(*raw, std::move(s)); });
  }
}

void SessionServer::Serve(Connection& c, net::ip::tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  c.session.downstream_ = &stream;
  beast::flat_buffer buffer;
  // Bounded: one request per iteration, ended by close, error, timeout or Stop.
  for (int served = 0; served < 100'000'000 && !c.session.stopping(); ++served) {
    Request request;
    stream.expires_after(options_.idle_timeout);
    beast::error_code ec = RunOne(c.ioc, [&](auto handler) { http::async_read(stream, buffer, request, std::move(handler)); });
    if (ec) break;
    stream.expires_never();
    Response response = handler_(request, c.session);
    if (c.session.stopping()) break;
    response.keep_alive(request.keep_alive() && response.keep_alive());
    const bool close = !response.keep_alive();
    stream.expires_after(std::chrono::seconds(30));
    ec = RunOne(c.ioc, [&](auto handler) { http::async_write(stream, response, std::move(handler)); });
    if (ec || close) break;
  }
  beast::error_code ignored;
  stream.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
  stream.socket().close(ignored);
  if (c.session.upstream) c.session.upstream->socket().close(ignored);
  c.session.downstream_ = nullptr;
  c.done.store(true);
}

}  // namespace aftershock::request_proxy::internal
