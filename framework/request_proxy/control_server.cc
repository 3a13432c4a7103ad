#include "framework/request_proxy/control_server.h"

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

#include <atomic>
#include <thread>
#include <utility>

#include "framework/request_proxy/internal/beast_common.h"

namespace aftershock::request_proxy {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using asio::awaitable;
using asio::use_awaitable;
using Json = nlohmann::json;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

constexpr std::string_view kRulesPrefix = "/rules/";

}  // namespace

class ControlServer::Impl {
 public:
  Impl(std::shared_ptr<RuleTable> rules, ControlServerOptions options)
      : rules_(std::move(rules)), options_(std::move(options)), acceptor_(io_) {
    if (!rules_) throw std::invalid_argument("ControlServer: rules must not be null");
    const tcp::endpoint listen = internal::LoopbackEndpoint(options_.listen, "ControlServer listen", true);
    beast::error_code ec;
    acceptor_.open(listen.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(listen, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error("ControlServer: cannot listen on " + options_.listen + ": " + ec.message());
    port_ = acceptor_.local_endpoint().port();
    asio::co_spawn(io_, Accept(), asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }
  ~Impl() { Stop(); }
  int port() const { return port_; }
  void Stop() {
    if (stopped_.exchange(true)) return;
    io_.stop();
    if (thread_.joinable()) thread_.join();
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
      asio::co_spawn(io_, Serve(std::move(socket)), asio::detached);
    }
  }

  awaitable<void> Serve(tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer;
    for (int served = 0; served < 100000; ++served) {
      Request request;
      beast::error_code ec;
      stream.expires_after(std::chrono::seconds(30));
      co_await http::async_read(stream, buffer, request, asio::redirect_error(use_awaitable, ec));
      if (ec) break;
      Response response = Handle(request);
      response.keep_alive(request.keep_alive());
      co_await http::async_write(stream, response, asio::redirect_error(use_awaitable, ec));
      if (ec || !request.keep_alive()) break;
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  static Response Reply(const Request& request, http::status status, const Json& body) {
    Response response{status, request.version()};
    response.set(http::field::content_type, "application/json");
    response.body() = body.dump() + "\n";
    response.prepare_payload();
    return response;
  }

  Response Handle(const Request& request) {
    const std::string target(request.target());
    const http::verb method = request.method();
    try {
      if (target == "/rules" && method == http::verb::get) {
        return Reply(request, http::status::ok, RuleStatusListToJson(rules_->List()));
      }
      if (target == "/rules" && method == http::verb::delete_) {
        return Reply(request, http::status::ok, Json{{"cleared", rules_->ClearAll()}});
      }
      if (target == "/leases" && method == http::verb::get) {
        const LeaseExpiries e = rules_->Expiries();
        return Reply(request, http::status::ok,
                     Json{{"expiries", e.count}, {"last_expiry_unix_ms", e.last_unix_ms}, {"last_expiry", e.last}});
      }
      if (target == "/listeners" && method == http::verb::get) {
        return Reply(request, http::status::ok, options_.listeners);
      }
      if (target.rfind(kRulesPrefix, 0) == 0 && target.size() > kRulesPrefix.size()) {
        const std::string id = target.substr(kRulesPrefix.size());
        if (method == http::verb::delete_) {
          if (rules_->Clear(id)) return Reply(request, http::status::ok, Json{{"cleared", true}});
          return Reply(request, http::status::not_found, Json{{"error", "no rule '" + id + "'"}});
        }
        if (method == http::verb::put) {
          Json json = Json::parse(request.body(), nullptr, false);
          if (json.is_discarded()) {
            return Reply(request, http::status::bad_request, Json{{"error", "rule '" + id + "': body is not JSON"}});
          }
          if (json.is_object() && !json.contains("id")) json["id"] = id;
          RequestRule rule = RuleFromJson(json);
          if (rule.id != id) {
            return Reply(request, http::status::bad_request,
                         Json{{"error", "rule '" + id + "': 'id' in the body is '" + rule.id + "'"}});
          }
          rules_->Set(rule);
          return Reply(request, http::status::ok, Json{{"rule", RuleToJson(rule)}});
        }
        return Reply(request, http::status::method_not_allowed,
                     Json{{"error", "use PUT or DELETE on " + target}});
      }
      return Reply(request, http::status::not_found,
                   Json{{"error", "no such endpoint: " + std::string(request.method_string()) + " " + target}});
    } catch (const RuleError& e) {
      return Reply(request, http::status::bad_request, Json{{"error", e.what()}});
    } catch (const std::exception& e) {
      return Reply(request, http::status::internal_server_error, Json{{"error", e.what()}});
    }
  }

  asio::io_context io_;
  std::shared_ptr<RuleTable> rules_;
  ControlServerOptions options_;
  tcp::acceptor acceptor_;
  int port_ = 0;
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};

ControlServer::ControlServer(std::shared_ptr<RuleTable> rules, ControlServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(rules), std::move(options))) {}
ControlServer::~ControlServer() = default;
int ControlServer::port() const { return impl_->port(); }
void ControlServer::Stop() { impl_->Stop(); }

}  // namespace aftershock::request_proxy
