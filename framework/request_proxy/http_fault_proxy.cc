#include "framework/request_proxy/http_fault_proxy.h"

#include <stdexcept>

#include "framework/request_proxy/internal/session_server.h"

namespace aftershock::request_proxy {
namespace {

using internal::Request;
using internal::Response;
using internal::RunOne;
using internal::Session;
namespace beast = internal::beast;
namespace http = internal::http;
namespace asio = internal::net;

constexpr char kFaultHeader[] = "X-Aftershock-Fault";
constexpr char kProxyErrorHeader[] = "X-Aftershock-Proxy-Error";
constexpr std::size_t kBodyLimit = 64 * 1024 * 1024;

Response Plain(http::status status, unsigned version, std::string body) {
  Response r{status, version};
  r.set(http::field::content_type, "text/plain");
  r.body() = std::move(body);
  r.prepare_payload();
  return r;
}

// One forward of `request` on the session's upstream connection (made or remade as needed).
// Empty error: `out` holds the upstream's response.
std::string Forward(Session& s, const asio::ip::tcp::endpoint& upstream, std::chrono::milliseconds timeout,
                    Request& request, Response& out) {
  // A reused keep-alive connection may have been closed by the upstream meanwhile: one fresh retry
  // when nothing came back on a reused connection.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool reused = s.upstream.has_value();
    if (!s.upstream) {
      s.upstream.emplace(s.ioc());
      s.upstream->expires_after(timeout);
      const beast::error_code ec = RunOne(s.ioc(), [&](auto h) { s.upstream->async_connect(upstream, std::move(h)); });
      if (ec) {
        s.upstream.reset();
        return "connect: " + ec.message();
      }
    }
    s.upstream->expires_after(timeout);
    beast::error_code ec = RunOne(s.ioc(), [&](auto h) { http::async_write(*s.upstream, request, std::move(h)); });
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(kBodyLimit);
    if (!ec) ec = RunOne(s.ioc(), [&](auto h) { http::async_read(*s.upstream, buffer, parser, std::move(h)); });
    if (!ec) {
      out = parser.release();
      if (!out.keep_alive()) s.upstream.reset();
      else s.upstream->expires_never();
      return {};
    }
    s.upstream.reset();
    const bool nothing_back = ec == http::error::end_of_stream || ec == asio::error::connection_reset ||
                              ec == asio::error::broken_pipe || ec == asio::error::eof;
    if (!(reused && nothing_back) || s.stopping()) return ec.message();
  }
  return "upstream closed the connection twice";
}

}  // namespace

HttpFaultProxy::HttpFaultProxy(HttpFaultProxyOptions options, std::shared_ptr<RuleTable> rules)
    : options_(std::move(options)), rules_(std::move(rules)), counters_(std::make_shared<Counters>()) {
  if (!rules_) throw std::invalid_argument("HttpFaultProxy: no rule table");
  if (options_.upstream.empty()) throw std::invalid_argument("HttpFaultProxy: no upstream (host:port)");
  const asio::ip::tcp::endpoint upstream = internal::LoopbackEndpoint(options_.upstream, "upstream");
  if (upstream.port() == 0) throw std::invalid_argument("upstream: '" + options_.upstream + "' needs a port");
  auto handler = [rules = rules_, counters = counters_, upstream, timeout = options_.upstream_timeout](
                     Request& request, Session& s) -> Response {
    counters->requests.fetch_add(1, std::memory_order_relaxed);
    const std::string target(request.target());
    const std::optional<FiredRule> fired = rules->Match(target);
    if (fired) counters->faulted.fetch_add(1, std::memory_order_relaxed);
    const RequestRule* rule = fired ? &fired->rule : nullptr;
    if (rule && rule->action == RuleAction::kStatus) {
      Response r = Plain(static_cast<http::status>(rule->status), request.version(),
                         "aftershock request proxy: rule " + rule->id + ": status " + std::to_string(rule->status) + "\n");
      r.set(kFaultHeader, rule->id);
      return r;
    }
    if (rule && rule->action == RuleAction::kDelayRequest && !s.Wait(rule->delay)) {
      return Plain(http::status::service_unavailable, request.version(), "aftershock request proxy: stopping\n");
    }
    Response response;
    const std::string error = Forward(s, upstream, timeout, request, response);
    if (!error.empty()) {
      counters->upstream_errors.fetch_add(1, std::memory_order_relaxed);
      Response r = Plain(http::status::bad_gateway, request.version(), "aftershock request proxy: upstream: " + error + "\n");
      r.set(kProxyErrorHeader, error);
      return r;
    }
    if (rule && rule->action == RuleAction::kDelayResponse && !s.Wait(rule->delay)) {
      return Plain(http::status::service_unavailable, request.version(), "aftershock request proxy: stopping\n");
    }
    if (rule && rule->action == RuleAction::kTruncateBody) {
      if (response.body().size() > rule->keep_bytes) response.body().resize(rule->keep_bytes);
      response.chunked(false);
      response.prepare_payload();
    }
    if (rule) response.set(kFaultHeader, rule->id);
    return response;
  };
  server_ = std::make_unique<internal::SessionServer>(
      internal::SessionServerOptions{.listen = options_.listen, .max_connections = options_.max_connections},
      std::move(handler));
}

HttpFaultProxy::~HttpFaultProxy() { Stop(); }

int HttpFaultProxy::port() const { return server_->port(); }

void HttpFaultProxy::Stop() {
  if (server_) server_->Stop();
}

HttpFaultProxyStats HttpFaultProxy::stats() const {
  return {counters_->requests.load(), counters_->faulted.load(), counters_->upstream_errors.load()};
}

}  // namespace aftershock::request_proxy
