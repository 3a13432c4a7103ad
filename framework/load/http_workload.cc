#include "framework/load/http_workload.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

namespace aftershock::load {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using BeastRequest = http::request<http::string_body>;

bool IsIdempotent(http::verb method) {
  return method == http::verb::get || method == http::verb::head || method == http::verb::options ||
         method == http::verb::put || method == http::verb::delete_;
}

BeastRequest ToBeast(const HttpRequest& request, const std::string& host) {
  BeastRequest req;
  req.method_string(request.method);
  req.target(request.target);
  req.version(11);
  req.set(http::field::host, host);
  req.set(http::field::user_agent, "aftershock");
  for (const auto& [name, value] : request.headers) req.set(name, value);
  req.body() = request.body;
  req.prepare_payload();
  return req;
}

struct HttpCallState : CallState {
  std::uint64_t sequence = 0;
  HttpRequest request;
  BeastRequest wire;
  int status = 0;
  std::string body;
  HttpHeaders headers;  // the kept fields of the last response
  std::optional<Clock::time_point> sent_at;
};

struct Connection {
  explicit Connection(net::io_context& ioc) : stream(net::make_strand(ioc)) {}
  beast::tcp_stream stream;
  beast::flat_buffer buffer;
  bool connected = false;
};

// What an attempt ended with: a response (status != 0) or a failure code.
struct ExchangeEnd {
  int status = 0;
  std::string body{};
  HttpHeaders headers{};  // the kept fields only
  CallCode failure = kCodeOk;
};

// One attempt on the wire. `finish` is called exactly once: with the status, body and kept headers,
// or with status 0 and the failure code. `sent_at` is set when the request has been written.
struct Exchange {
  const BeastRequest* request = nullptr;  // lives in the call state, which outlives the attempt
  Clock::time_point deadline;
  std::function<void(ExchangeEnd end, std::optional<Clock::time_point> sent_at)> finish;
  std::optional<Clock::time_point> sent_at;
  http::response<http::string_body> response;
  bool reused = false;
  bool resent = false;
  bool waiting = false;  // queued for a connection; guarded by the pool's mutex
  bool waited = false;   // was queued at some point: a later deadline is partly the generator's
  Clock::time_point wait_started{};
  std::unique_ptr<net::steady_timer> wait_timer;
};

}  // namespace

class HttpWorkload::Pool {
 public:
  Pool(const HttpHostPort& target, int max_connections, int io_threads, std::vector<std::string> keep_headers)
      : max_connections_(max_connections),
        keep_headers_(std::move(keep_headers)),
        work_(net::make_work_guard(ioc_)) {
    tcp::resolver resolver(ioc_);
    beast::error_code ec;
    auto results = resolver.resolve(target.host, std::to_string(target.port), ec);
    if (ec || results.empty()) {
      throw std::invalid_argument("HTTP target " + target.host + ": cannot resolve: " + ec.message());
    }
    endpoint_ = results.begin()->endpoint();
    for (int i = 0; i < io_threads; ++i) threads_.emplace_back([this] { ioc_.run(); });
  }

  ~Pool() {
    work_.reset();
    ioc_.stop();  // Pending attempts are abandoned: the runner that would hear them is gone.
    for (std::thread& t : threads_) t.join();
    // The idle keep-alive connections end with a FIN, as a client that is done would; the busy
    // ones (abandoned attempts) keep the abortive close set at connect.
    for (const std::shared_ptr<Connection>& conn : idle_) CloseGracefully(*conn);
  }

  void Submit(std::shared_ptr<Exchange> ex, bool fresh_only = false) {
    std::shared_ptr<Connection> conn;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!fresh_only && !idle_.empty()) {
        conn = std::move(idle_.back());
        idle_.pop_back();
        ex->reused = true;
      } else if (open_ < max_connections_) {
        ++open_;
        conn = std::make_shared<Connection>(ioc_);
        ex->reused = false;
      } else {
        ++waited_;
        ex->waiting = true;
        ex->waited = true;
        ex->wait_started = Clock::now();
        ex->wait_timer = std::make_unique<net::steady_timer>(ioc_, ex->deadline);
        // Not cancelled when a connection comes: the handler just finds the attempt no longer waiting.
        ex->wait_timer->async_wait([this, ex](beast::error_code) {
          {
            std::lock_guard<std::mutex> lock(mu_);
            if (!ex->waiting) return;
            ex->waiting = false;
            EndWaitLocked(*ex);
            ++wait_timeouts_;
            for (auto it = pending_.begin(); it != pending_.end(); ++it) {
              if (*it == ex) {
                pending_.erase(it);
                break;
              }
            }
          }
          // Never sent: the generator's own pool was full for the whole deadline, not the service.
          ex->finish({.failure = kCodeGeneratorPoolTimeout}, std::nullopt);
        });
        pending_.push_back(std::move(ex));
        return;
      }
    }
    Run(std::move(ex), std::move(conn));
  }

  // When the last request went onto a connection (Workload::LastSent); 0 ticks: none yet.
  std::optional<Clock::time_point> LastWrite() const {
    const Clock::rep ticks = last_write_.load(std::memory_order_relaxed);
    if (ticks == 0) return std::nullopt;
    return Clock::time_point(Clock::duration(ticks));
  }

  HttpWorkloadStats stats() const {
    HttpWorkloadStats s;
    s.requests_sent = sent_.load();
    s.connections_opened = opened_.load();
    s.reused = reused_.load();
    s.connections_closed_on_error = closed_on_error_.load();
    s.stale_resends = resends_.load();
    std::lock_guard<std::mutex> lock(mu_);
    s.waited_for_connection = waited_;
    s.timed_out_waiting_for_connection = wait_timeouts_;
    s.waited_then_timed_out = waited_then_timed_out_.load();
    s.connection_wait_total = wait_total_;
    s.connection_wait_max = wait_max_;
    return s;
  }

 private:
  void Run(std::shared_ptr<Exchange> ex, std::shared_ptr<Connection> conn) {
    sent_.fetch_add(1, std::memory_order_relaxed);
    if (ex->reused) reused_.fetch_add(1, std::memory_order_relaxed);
    auto executor = conn->stream.get_executor();  // before the move below: argument order is unspecified
    net::dispatch(executor, [this, ex = std::move(ex), conn = std::move(conn)]() mutable {
      // One absolute expiry for connect, write and read: the attempt's deadline.
      conn->stream.expires_at(ex->deadline);
      if (conn->connected) return Write(std::move(ex), std::move(conn));
      conn->stream.async_connect(endpoint_, [this, ex, conn](beast::error_code ec) mutable {
        if (ec) return Fail(std::move(ex), std::move(conn), ec, false, /*connect_failed=*/true);
        conn->connected = true;
        opened_.fetch_add(1, std::memory_order_relaxed);
        SetAbortiveClose(*conn);
        Write(std::move(ex), std::move(conn));
      });
    });
  }

  void Write(std::shared_ptr<Exchange> ex, std::shared_ptr<Connection> conn) {
    const Clock::rep now = Clock::now().time_since_epoch().count();
    Clock::rep seen = last_write_.load(std::memory_order_relaxed);
    while (now > seen && !last_write_.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
    http::async_write(conn->stream, *ex->request, [this, ex, conn](beast::error_code ec, std::size_t) mutable {
      if (ec) return Fail(std::move(ex), std::move(conn), ec, true);
      ex->sent_at = Clock::now();
      Read(std::move(ex), std::move(conn));
    });
  }

  void Read(std::shared_ptr<Exchange> ex, std::shared_ptr<Connection> conn) {
    ex->response = {};
    http::async_read(conn->stream, conn->buffer, ex->response,
                     [this, ex, conn](beast::error_code ec, std::size_t) mutable {
                       if (ec) return Fail(std::move(ex), std::move(conn), ec, ec == http::error::end_of_stream);
                       const bool keep_alive = ex->response.keep_alive();
                       ExchangeEnd end{.status = static_cast<int>(ex->response.result_int()),
                                       .body = std::move(ex->response.body())};
                       KeepHeaders(ex->response, end.headers);
                       conn->stream.expires_never();
                       if (keep_alive) {
                         Release(std::move(conn));
                       } else {
                         Discard(std::move(conn), false);
                       }
                       ex->finish(std::move(end), ex->sent_at);
                     });
  }

  // `nothing_received`: the server closed (or refused the write) before any byte of a response.
  // `connect_failed`: the connection was never made, so nothing was sent (kCodeNotSent unless timed out).
  void Fail(std::shared_ptr<Exchange> ex, std::shared_ptr<Connection> conn, beast::error_code ec,
            bool nothing_received, bool connect_failed = false) {
    const bool timed_out = ec == beast::error::timeout || Clock::now() >= ex->deadline;
    const bool stale = ex->reused && !ex->resent && !timed_out && nothing_received &&
                       IsIdempotent(ex->request->method());
    Discard(std::move(conn), true);
    if (stale) {
      ex->resent = true;
      ex->sent_at.reset();
      resends_.fetch_add(1, std::memory_order_relaxed);
      return Submit(std::move(ex), /*fresh_only=*/true);
    }
    if (timed_out && ex->waited) {
      // Sent late because the generator's own pool was full: the generator's deadline, not the service's.
      waited_then_timed_out_.fetch_add(1, std::memory_order_relaxed);
      return ex->finish({.failure = kCodeGeneratorPoolWaitDeadline}, ex->sent_at);
    }
    ex->finish({.failure = timed_out ? kCodeDeadlineExceeded : connect_failed ? kCodeNotSent : kCodeTransportError},
               ex->sent_at);
  }

  // Copies the fields named in keep_headers_ (none when it is empty: the common case costs nothing).
  void KeepHeaders(const http::response<http::string_body>& response, HttpHeaders& out) const {
    if (keep_headers_.empty()) return;
    for (const auto& field : response) {
      const std::string_view name(field.name_string().data(), field.name_string().size());
      for (const std::string& wanted : keep_headers_) {
        if (HttpFieldNameEquals(name, wanted)) {
          out.emplace_back(std::string(name), std::string(field.value().data(), field.value().size()));
          break;
        }
      }
    }
  }

  // Back to the pool, or straight to the oldest attempt waiting for a connection.
  void Release(std::shared_ptr<Connection> conn) {
    std::shared_ptr<Exchange> next;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.empty()) {
        idle_.push_back(std::move(conn));
        return;
      }
      next = std::move(pending_.front());
      pending_.pop_front();
      next->waiting = false;
      EndWaitLocked(*next);
      next->reused = true;
    }
    Run(std::move(next), std::move(conn));
  }

  // Every connection closes abortively (SO_LINGER 0: an RST, no TIME_WAIT on this side) unless
  // CloseGracefully undoes it. Why: a connection the generator gives up on (an attempt past its
  // deadline: Beast closes the socket itself, or a transport error) would otherwise sit in
  // FIN_WAIT/TIME_WAIT for a minute holding its ephemeral port. Under overload every attempt times
  // out, so at 1,600 closes/s the ~28k loopback ports ran out within seconds and each connect()
  // spent milliseconds in the kernel's port search (perf: __inet_hash_connect, 100% sys), which
  // made the generator notice deadlines seconds late: the weekly alert-chain's 3000/s stage.
  static void SetAbortiveClose(Connection& conn) {
    beast::error_code ignored;
    conn.stream.socket().set_option(net::socket_base::linger(true, 0), ignored);
  }

  // A normal FIN close, for a connection that ended well (the server asked to close, or the pool
  // is done with an idle one).
  static void CloseGracefully(Connection& conn) {
    beast::error_code ignored;
    conn.stream.socket().set_option(net::socket_base::linger(false, 0), ignored);
    conn.stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    conn.stream.close();
  }

  // Closes a connection for good; its slot goes to the oldest waiting attempt, if any. On an error
  // the close is abortive (see SetAbortiveClose), otherwise graceful.
  void Discard(std::shared_ptr<Connection> conn, bool on_error) {
    if (on_error) {
      closed_on_error_.fetch_add(1, std::memory_order_relaxed);
      conn->stream.close();
    } else {
      CloseGracefully(*conn);
    }
    std::shared_ptr<Exchange> next;
    std::shared_ptr<Connection> fresh;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.empty()) {
        --open_;
        return;
      }
      next = std::move(pending_.front());
      pending_.pop_front();
      next->waiting = false;
      EndWaitLocked(*next);
      next->reused = false;
      fresh = std::make_shared<Connection>(ioc_);  // takes over the closed one's slot
    }
    Run(std::move(next), std::move(fresh));
  }

  // Adds the time `ex` spent waiting for a connection; under mu_.
  void EndWaitLocked(const Exchange& ex) {
    const auto waited = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - ex.wait_started);
    wait_total_ += waited;
    wait_max_ = std::max(wait_max_, waited);
  }

  // Declared first: destroyed last, after every socket and handler that refers to it.
  net::io_context ioc_;
  const int max_connections_;
  const std::vector<std::string> keep_headers_;
  tcp::endpoint endpoint_;
  net::executor_work_guard<net::io_context::executor_type> work_;
  std::vector<std::thread> threads_;

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<Connection>> idle_;
  std::deque<std::shared_ptr<Exchange>> pending_;
  int open_ = 0;  // idle + busy
  std::uint64_t waited_ = 0;
  std::uint64_t wait_timeouts_ = 0;
  std::chrono::nanoseconds wait_total_{0};
  std::chrono::nanoseconds wait_max_{0};

  std::atomic<std::uint64_t> sent_{0}, opened_{0}, reused_{0}, closed_on_error_{0}, resends_{0},
      waited_then_timed_out_{0};
  std::atomic<Clock::rep> last_write_{0};
};

HttpWorkload::HttpWorkload(HttpWorkloadOptions options) : options_(std::move(options)) {
  if (options_.max_connections < 1) throw std::invalid_argument("HttpWorkload: max_connections must be >= 1");
  if (options_.io_threads < 1 || options_.io_threads > 64) {
    throw std::invalid_argument("HttpWorkload: io_threads must be in 1..64");
  }
  const HttpHostPort target = ParseHttpHostPort(options_.target, options_.allow_non_loopback);
  for (const std::string& name : options_.keep_headers) {
    if (name.empty()) throw std::invalid_argument("HttpWorkload: keep_headers has an empty name");
  }
  pool_ = std::make_unique<Pool>(target, options_.max_connections, options_.io_threads, options_.keep_headers);
}

HttpWorkload::~HttpWorkload() = default;

std::unique_ptr<CallState> HttpWorkload::NewCall(std::uint64_t sequence) {
  auto state = std::make_unique<HttpCallState>();
  state->sequence = sequence;
  if (options_.make_request) {
    state->request = options_.make_request(sequence);
  } else {
    state->request.method = options_.method;
    state->request.target = options_.path;
    state->request.headers = options_.headers;
    state->request.body = options_.body;
  }
  state->wire = ToBeast(state->request, options_.target);
  return state;
}

void HttpWorkload::Issue(CallState& call, const Attempt& attempt, AttemptDone done) {
  auto& state = static_cast<HttpCallState&>(call);
  state.status = 0;
  state.body.clear();
  state.headers.clear();
  state.sent_at.reset();
  auto ex = std::make_shared<Exchange>();
  ex->request = &state.wire;
  ex->deadline = attempt.deadline;
  ex->finish = [this, &state, done](ExchangeEnd end, std::optional<Clock::time_point> sent_at) {
    CallCode code = end.failure;
    state.sent_at = sent_at;
    if (end.status != 0) {
      state.status = end.status;
      state.body = std::move(end.body);
      state.headers = std::move(end.headers);
      code = Classify(state.request, state.status, state.body);
    }
    done(code);  // last: the state may be gone after this
  };
  pool_->Submit(std::move(ex));
}

void HttpWorkload::OnFinal(CallState& call, const FinalOutcome& outcome) {
  if (!options_.on_final) return;
  auto& state = static_cast<HttpCallState&>(call);
  options_.on_final(HttpCallResult{.sequence = state.sequence,
                                   .request = &state.request,
                                   .status = state.status,
                                   .body = state.body,
                                   .headers = state.headers,
                                   .sent_at = state.sent_at},
                    outcome);
}

HttpWorkloadStats HttpWorkload::stats() const { return pool_->stats(); }

std::optional<Clock::time_point> HttpWorkload::LastSent() const { return pool_->LastWrite(); }

GeneratorWaitStats HttpWorkload::GeneratorWaits() const {
  const HttpWorkloadStats s = pool_->stats();
  return GeneratorWaitStats{s.waited_for_connection, s.timed_out_waiting_for_connection, s.waited_then_timed_out,
                            s.connection_wait_total, s.connection_wait_max};
}

CallCode HttpWorkload::Classify(const HttpRequest& request, int status, std::string_view body) const {
  if (options_.validate) return options_.validate(status, body);
  constexpr int kNoContent = 204;  // says it has no body: never a violation of the default contract
  const bool checked = options_.require_body || (!options_.allow_empty_body && request.method == "GET");
  if (checked && IsHttpSuccess(status) && status != kNoContent && body.empty()) return kCodeContractViolation;
  return status;
}

bool IsHttpSuccess(CallCode code) { return code >= 200 && code <= 299; }

OutcomePolicy HttpOutcomePolicy(std::function<bool(CallCode)> is_success, std::set<CallCode> retryable) {
  OutcomePolicy policy;
  policy.is_success = std::move(is_success);
  policy.retryable = std::move(retryable);
  // A deadline after a pool wait was on the wire too: the service may have acted on it.
  policy.indeterminate = {kCodeDeadlineExceeded, kCodeTransportError, kCodeGeneratorPoolWaitDeadline};
  return policy;
}

}  // namespace aftershock::load
