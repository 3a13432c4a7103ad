// HttpWorkload: drives an HTTP/1.1 endpoint with the open-model runner (Boost.Beast, keep-alive pool).
//
// The sibling of GrpcUnaryWorkload. Each call is one request (the same one every time, or one built
// per call); the HTTP status becomes the CallCode (200..599), a refused connection is kCodeNotSent
// (nothing was sent: not indeterminate), a connection or protocol failure after connecting is
// kCodeTransportError, and a request still unanswered at the attempt's deadline is cancelled and
// reported as kCodeDeadlineExceeded. Connections are kept alive and reused; one that errored is closed
// and never reused. Size max_connections to the runner's in-flight ceiling: a request that finds every
// connection busy waits (within its deadline) for one to come free. That wait is the generator's, not
// the service's: an attempt still waiting at its deadline completes as kCodeGeneratorPoolTimeout (never
// sent, so not indeterminate), one that waited and then hit its deadline on the wire as
// kCodeGeneratorPoolWaitDeadline (indeterminate); the runner counts both apart from the service's
// failures and they make the run generator-limited; see GeneratorWaits().
//
//   HttpWorkload workload({.target = work.address(), .path = "/work", .max_connections = 2000});
//   RunnerOptions options{.profile = RateProfile::Constant(60, 30), .max_in_flight = 2000,
//                         .policy = HttpOutcomePolicy()};
//   RunResult result = OpenModelRunner(workload, options, RunClock::StartNow()).Run();
//
// Like Vegeta in the seed, nothing is retried by default. The one exception is transport hygiene, as
// in Go's net/http: an idempotent request that finds a reused keep-alive connection already closed by
// the server (nothing received) is sent once more on a fresh connection; see stats().stale_resends.
//
// For contracts on the response beyond its status (e.g. a shed response's Retry-After), name the
// fields in keep_headers: on_final then sees their values, and when the request was written
// (HttpCallResult::sent_at), e.g. for framework/stress's ResponseRecorder:
//
//   HttpWorkload workload({.target = gateway, .path = "/pay", .keep_headers = {"Retry-After"},
//                          .on_final = [&](const HttpCallResult& c, const FinalOutcome& o) { recorder.Record(c, o); }});
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_HTTP_WORKLOAD_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_HTTP_WORKLOAD_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/common/call_code.h"
#include "framework/load/http_client.h"
#include "framework/load/workload.h"

namespace aftershock::load {

// What on_final sees of a call (its last attempt). `status` is 0 when no response arrived. The views
// are valid only during the on_final call.
struct HttpCallResult {
  std::uint64_t sequence = 0;
  const HttpRequest* request = nullptr;
  int status = 0;
  std::string_view body{};
  // The response's fields named in HttpWorkloadOptions::keep_headers (in the response's order and
  // spelling; a repeated field appears once per occurrence); empty when none is kept or no response.
  std::span<const std::pair<std::string, std::string>> headers{};
  // When the last attempt's request had been written to the socket (the write completed), so a
  // response's latency can be measured from the actual send as well as from the intended time.
  // Empty when it was never written (refused, timed out waiting or connecting, write failed).
  std::optional<Clock::time_point> sent_at{};
};

struct HttpWorkloadOptions {
  std::string target{};  // "127.0.0.1:8080"
  bool allow_non_loopback = false;
  // The request of every call, unless make_request is set.
  std::string method = "GET";
  std::string path = "/";
  std::vector<std::pair<std::string, std::string>> headers{};
  std::string body{};
  // Optional: builds call n's request (called on the dispatcher thread; keep it cheap).
  std::function<HttpRequest(std::uint64_t sequence)> make_request{};
  // The keep-alive pool's size; at most this many requests are on the wire at once.
  int max_connections = 1024;
  int io_threads = 1;
  // Response header fields handed to on_final in HttpCallResult::headers (names matched ASCII
  // case-insensitively, e.g. {"Retry-After"}); the others are not copied. Empty: none.
  std::vector<std::string> keep_headers{};
  // The default body contract (when `validate` is not set): a 2xx answer to a GET with an empty body
  // is kCodeContractViolation ("200s with empty bodies. No 500s" is an incident, not a success), but
  // 204 No Content, which says it has none. `require_body`: the same for every method. `allow_empty_body`:
  // an empty 2xx body is this target's contract (a GET whose empty answer is valid): no check.
  bool require_body = false;
  bool allow_empty_body = false;
  // Optional: replaces the default validation; returns the call's code for a response that arrived.
  std::function<CallCode(int status, std::string_view body)> validate{};
  // Optional: hears every call's final outcome (record promises here).
  std::function<void(const HttpCallResult&, const FinalOutcome&)> on_final{};
  // Whether the requests may be repeated (workload.h); must be declared when the policy retries a
  // code that may have been applied.
  Idempotency idempotency = Idempotency::kUndeclared;
};

struct HttpWorkloadStats {
  std::uint64_t requests_sent = 0;        // attempts that got a connection
  std::uint64_t connections_opened = 0;   // successful connects
  std::uint64_t reused = 0;               // requests sent on a kept-alive connection
  std::uint64_t connections_closed_on_error = 0;
  std::uint64_t stale_resends = 0;
  std::uint64_t waited_for_connection = 0;             // attempts that found every connection busy
  std::uint64_t timed_out_waiting_for_connection = 0;  // ... and reached their deadline still waiting
  std::uint64_t waited_then_timed_out = 0;             // ... or got one late and hit the deadline on the wire
  std::chrono::nanoseconds connection_wait_total{0};   // time spent waiting, summed over attempts
  std::chrono::nanoseconds connection_wait_max{0};
};

class HttpWorkload : public Workload {
 public:
  // Throws std::invalid_argument for a bad or non-loopback target, or bad sizes.
  explicit HttpWorkload(HttpWorkloadOptions options);
  ~HttpWorkload() override;
  HttpWorkload(const HttpWorkload&) = delete;
  HttpWorkload& operator=(const HttpWorkload&) = delete;

  std::unique_ptr<CallState> NewCall(std::uint64_t sequence) override;
  void Issue(CallState& call, const Attempt& attempt, AttemptDone done) override;
  void OnFinal(CallState& call, const FinalOutcome& outcome) override;

  HttpWorkloadStats stats() const;
  // The pool waits above, for the runner's generator health.
  GeneratorWaitStats GeneratorWaits() const override;
  Idempotency CallIdempotency() const override { return options_.idempotency; }
  // When the pool last wrote a request (an attempt may wait for a free connection after Issue).
  std::optional<Clock::time_point> LastSent() const override;

  class Pool;  // Asio internals, in the .cc

 private:
  CallCode Classify(const HttpRequest& request, int status, std::string_view body) const;

  HttpWorkloadOptions options_;
  std::unique_ptr<Pool> pool_;
};

// 200..299.
bool IsHttpSuccess(CallCode code);

// An OutcomePolicy for HTTP workloads: success by `is_success`, retries only for `retryable` (none by
// default, like the seed's Vegeta), indeterminate = {kCodeDeadlineExceeded, kCodeTransportError,
// kCodeGeneratorPoolWaitDeadline}: a status means the service answered, kCodeNotSent that it was never
// reached. docs/call-codes.md says which statuses may be retried for which writes.
OutcomePolicy HttpOutcomePolicy(std::function<bool(CallCode)> is_success = IsHttpSuccess,
                                std::set<CallCode> retryable = {});

}  // namespace aftershock::load

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_HTTP_WORKLOAD_H_
