#include "framework/request_proxy/http_fault_proxy.h"

// Boost 1.74 Asio's coroutine frames trip a GCC 12 false positive (operator delete of the frame
// allocator); the pairing is Asio's own and correct.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "framework/request_proxy/internal/beast_common.h"

namespace aftershock::request_proxy {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using asio::awaitable;
using asio::use_awaitable;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

constexpr auto kClientIdleTimeout = std::chrono::minutes(5);

Response TextResponse(unsigned status, unsigned version, std::string body) {
  Response response{static_cast<http::status>(status), version};
  response.set(http::field::content_type, "text/plain");
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

}  // namespace

class HttpFaultProxy::Impl {
 public:
  Impl(std::shared_ptr<RuleTable> rules, HttpFaultProxyOptions options)
      : rules_(std::move(rules)), options_(std::move(options)), acceptor_(io_) {
    if (!rules_) throw std::invalid_argument("HttpFaultProxy: rules must not be null");
    if (options_.threads < 1 || options_.threads > 16) {
      throw std::invalid_argument("HttpFaultProxy: 'threads' must be in 1..16, got " + std::to_string(options_.threads));
    }
    upstream_ = internal::LoopbackEndpoint(options_.upstream, "HttpFaultProxy upstream", false);
    const tcp::endpoint listen = internal::LoopbackEndpoint(options_.listen, "HttpFaultProxy listen", true);
    beast::error_code ec;
    acceptor_.open(listen.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(listen, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error("HttpFaultProxy: cannot listen on " + options_.listen + ": " + ec.message());
    port_ = acceptor_.local_endpoint().port();
    asio::co_spawn(io_, Accept(), asio::detached);
    for (int i = 0; i < options_.threads; ++i) threads_.emplace_back([this] { io_.run(); });
  }

  ~Impl() { Stop(); }

  int port() const { return port_; }

  void Stop() {
    if (stopped_.exchange(true)) return;
    io_.stop();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

 private:
  awaitable<void> Accept() {
    for (;;) {
      beast::error_code ec;
      tcp::socket socket = co_await acceptor_.async_accept(asio::redirect_error(use_awaitable, ec));
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      asio::co_spawn(io_, Serve(std::move(socket)), asio::detached);
    }
  }

  awaitable<void> Serve(tcp::socket socket) {
    beast::tcp_stream client(std::move(socket));
    beast::flat_buffer buffer;
    for (;;) {
      Request request;
      beast::error_code ec;
      client.expires_after(kClientIdleTimeout);
      co_await http::async_read(client, buffer, request, asio::redirect_error(use_awaitable, ec));
      if (ec) break;
      const bool keep_alive = request.keep_alive();
      Response response = co_await Handle(std::move(request));
      response.keep_alive(keep_alive);
      client.expires_after(options_.upstream_timeout);
      co_await http::async_write(client, response, asio::redirect_error(use_awaitable, ec));
      if (ec || !keep_alive) break;
    }
    beast::error_code ignored;
    client.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  awaitable<Response> Handle(Request request) {
    const std::optional<RequestRule> rule = rules_->Match(Protocol::kHttp, std::string_view(request.target().data(), request.target().size()));
    const unsigned version = request.version();
    if (rule) {
      if (const auto* status = std::get_if<StatusAction>(&rule->action)) {
        Response response = TextResponse(static_cast<unsigned>(status->code), version,
                                          "aftershock request proxy: rule '" + rule->id + "'\n");
        response.set(kFaultHeader, rule->id);
        co_return response;
      }
      if (const auto* delay = std::get_if<DelayRequestAction>(&rule->action)) co_await internal::Sleep(delay->delay);
    }
    const bool head = request.method() == http::verb::head;
    std::string error;
    std::optional<Response> forwarded = co_await Forward(request, head, error);
    if (!forwarded) {
      Response response = TextResponse(502, version, "aftershock request proxy: upstream " + options_.upstream +
                                                         ": " + error + "\n");
      if (rule) response.set(kFaultHeader, rule->id);
      co_return response;
    }
    Response response = std::move(*forwarded);
    if (rule) {
      if (const auto* delay = std::get_if<DelayResponseAction>(&rule->action)) co_await internal::Sleep(delay->delay);
      if (const auto* truncate = std::get_if<TruncateBodyAction>(&rule->action)) {
        auto& body = response.body();
        body.resize(std::min<std::size_t>(body.size(), static_cast<std::size_t>(truncate->keep_bytes)));
        response.prepare_payload();  // Content-Length of what is left (chunked is dropped)
      }
      response.set(kFaultHeader, rule->id);
    }
    co_return response;
  }

  // One exchange with the upstream on a pooled connection (a stale one is retried once on a fresh
  // connection); nullopt with `error` when it failed.
  awaitable<std::optional<Response>> Forward(Request& request, bool head, std::string& error) {
    request.keep_alive(true);
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::optional<beast::tcp_stream> upstream = TakeIdle();
      const bool reused = upstream.has_value();
      beast::error_code ec;
      if (!reused) {
        upstream.emplace(co_await asio::this_coro::executor);
        upstream->expires_after(options_.upstream_timeout);
        co_await upstream->async_connect(upstream_, asio::redirect_error(use_awaitable, ec));
        if (ec) {
          error = "connect: " + ec.message();
          co_return std::nullopt;
        }
        upstream->socket().set_option(tcp::no_delay(true), ec);
      }
      upstream->expires_after(options_.upstream_timeout);
      co_await http::async_write(*upstream, request, asio::redirect_error(use_awaitable, ec));
      if (ec) {
        error = "write: " + ec.message();
        if (reused) continue;
        co_return std::nullopt;
      }
      beast::flat_buffer buffer;
      http::response_parser<http::string_body> parser;
      parser.body_limit(64 * 1024 * 1024);
      if (head) parser.skip(true);
      co_await http::async_read(*upstream, buffer, parser, asio::redirect_error(use_awaitable, ec));
      if (ec) {
        error = "read: " + ec.message();
        if (reused && !parser.got_some()) continue;
        co_return std::nullopt;
      }
      Response response = parser.release();
      if (response.keep_alive()) ReturnIdle(std::move(*upstream));
      co_return response;
    }
    co_return std::nullopt;
  }

  std::optional<beast::tcp_stream> TakeIdle() {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (idle_.empty()) return std::nullopt;
    beast::tcp_stream stream = std::move(idle_.back());
    idle_.pop_back();
    return stream;
  }

  void ReturnIdle(beast::tcp_stream stream) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (idle_.size() < options_.max_idle_upstream) idle_.push_back(std::move(stream));
  }

  asio::io_context io_;
  std::shared_ptr<RuleTable> rules_;
  HttpFaultProxyOptions options_;
  tcp::endpoint upstream_;
  tcp::acceptor acceptor_;
  int port_ = 0;
  std::mutex pool_mu_;
  std::vector<beast::tcp_stream> idle_;
  std::atomic<bool> stopped_{false};
  std::vector<std::thread> threads_;
};

HttpFaultProxy::HttpFaultProxy(std::shared_ptr<RuleTable> rules, HttpFaultProxyOptions options)
    : impl_(std::make_unique<Impl>(std::move(rules), std::move(options))) {}
HttpFaultProxy::~HttpFaultProxy() = default;
int HttpFaultProxy::port() const { return impl_->port(); }
void HttpFaultProxy::Stop() { impl_->Stop(); }

}  // namespace aftershock::request_proxy
