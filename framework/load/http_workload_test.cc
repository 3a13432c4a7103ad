#include "framework/load/http_workload.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "framework/load/http_test_server.h"
#include "framework/load/open_model_runner.h"

namespace aftershock::load {
namespace {

using std::chrono::milliseconds;

RunResult RunConstant(Workload& workload, double rate, double seconds, milliseconds deadline) {
  RunnerOptions options;
  options.profile = RateProfile::Constant(rate, seconds);
  options.call_deadline = deadline;
  options.max_in_flight = 1000;
  options.policy = HttpOutcomePolicy();
  RunClock clock = RunClock::StartNow();
  OpenModelRunner runner(workload, options, clock);
  return runner.Run();
}

std::map<CallCode, std::uint64_t> FailuresByCode(const RunResult& r) {
  std::map<CallCode, std::uint64_t> out;
  for (const auto& second : r.timeline.seconds()) {
    for (const auto& [code, n] : second.failed_by_code) out[code] += n;
  }
  return out;
}

std::uint64_t Indeterminate(const RunResult& r) {
  std::uint64_t n = 0;
  for (const auto& second : r.timeline.seconds()) n += second.indeterminate;
  return n;
}

// A port nothing listens on (bound, then released).
TEST(HttpWorkloadTest, StatusBecomesTheCallCode) {
  HttpTestServer server([](const HttpRequest& r) {
    if (r.target == "/fail") return TestReply{.status = 500, .body = "boom"};
    if (r.target == "/busy") return TestReply{.status = 503, .body = "busy"};
    return TestReply{.status = 200, .body = "fine"};
  });
  std::mutex mu;
  std::map<std::uint64_t, std::pair<int, std::string>> seen;
  int indeterminate = 0;
  HttpWorkload workload({.target = server.address(),
                         .make_request =
                             [](std::uint64_t n) {
                               static const char* const kPaths[] = {"/ok", "/fail", "/busy"};
                               return HttpRequest{.target = kPaths[n % 3]};
                             },
                         .on_final = [&](const HttpCallResult& call, const FinalOutcome& outcome) {
                           std::lock_guard<std::mutex> lock(mu);
                           seen[call.sequence] = {call.status, std::string(call.body)};
                           if (outcome.indeterminate) ++indeterminate;
                         }});
  RunResult r = RunConstant(workload, 30, 1, milliseconds(2000));
  EXPECT_EQ(r.issued, 30u);
  EXPECT_EQ(r.ok, 10u);
  EXPECT_EQ(r.failed, 20u);
  EXPECT_EQ(r.retries, 0u);
  const auto failures = FailuresByCode(r);
  EXPECT_EQ(failures, (std::map<CallCode, std::uint64_t>{{500, 10}, {503, 10}}));
  ASSERT_EQ(seen.size(), 30u);
  for (const auto& [sequence, status_body] : seen) {
    const int expected = sequence % 3 == 0 ? 200 : sequence % 3 == 1 ? 500 : 503;
    EXPECT_EQ(status_body.first, expected) << "call " << sequence;
  }
  EXPECT_EQ(seen.begin()->second.second, "fine");
  EXPECT_EQ(indeterminate, 0);
  EXPECT_EQ(server.requests(), 30);
}

TEST(HttpWorkloadTest, SlowResponseIsDeadlineExceededWithinBounds) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{.delay = milliseconds(3000)}; });
  std::mutex mu;
  std::vector<milliseconds> latencies;
  HttpWorkload workload({.target = server.address(),
                         .on_final = [&](const HttpCallResult& call, const FinalOutcome& outcome) {
                           std::lock_guard<std::mutex> lock(mu);
                           EXPECT_EQ(call.status, 0);
                           latencies.push_back(
                               std::chrono::duration_cast<milliseconds>(outcome.completed - outcome.intended));
                         }});
  RunResult r = RunConstant(workload, 10, 0.5, milliseconds(200));
  EXPECT_EQ(r.issued, 5u);
  EXPECT_EQ(r.ok, 0u);
  EXPECT_EQ(FailuresByCode(r), (std::map<CallCode, std::uint64_t>{{kCodeDeadlineExceeded, 5}}));
  EXPECT_EQ(Indeterminate(r), 5u);
  ASSERT_EQ(latencies.size(), 5u);
  for (milliseconds l : latencies) {
    EXPECT_GE(l.count(), 190);   // not before the deadline
    EXPECT_LE(l.count(), 2000);  // and well before the server would have answered
  }
  EXPECT_EQ(workload.stats().connections_closed_on_error, 5u);
}

// Client-side sockets to 127.0.0.1:`port` still holding their ephemeral port after the client
// closed (FIN_WAIT1, FIN_WAIT2, CLOSING, TIME_WAIT, LAST_ACK in /proc/net/tcp).
int LingeringClientSockets(int port) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // header
  int n = 0;
  char remote_port[8];
  std::snprintf(remote_port, sizeof remote_port, "%04X", port);
  for (int i = 0; i < 100000 && std::getline(in, line); ++i) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    const bool to_server = remote == std::string("0100007F:") + remote_port;
    if (to_server && (state == "04" || state == "05" || state == "06" || state == "09" || state == "0B")) ++n;
  }
  return n;
}

TEST(HttpWorkloadTest, AnAttemptPastItsDeadlineFreesItsPortAtOnce) {
  // The server never answers in time; every attempt's connection is abandoned at the deadline.
  // Closed normally each would hold its ephemeral port in FIN_WAIT2/TIME_WAIT for a minute (the
  // overload that exhausted ~28k ports in seconds); closed abortively it frees it at once.
  HttpTestServer server([](const HttpRequest&) { return TestReply{.delay = milliseconds(3000)}; });
  {
    HttpWorkload workload({.target = server.address()});
    RunResult r = RunConstant(workload, 100, 0.3, milliseconds(100));
    EXPECT_EQ(r.issued, 30u);
    EXPECT_EQ(FailuresByCode(r), (std::map<CallCode, std::uint64_t>{{kCodeDeadlineExceeded, 30}}));
    EXPECT_EQ(workload.stats().connections_closed_on_error, 30u);
  }
  EXPECT_EQ(LingeringClientSockets(server.port()), 0);
}

TEST(HttpWorkloadTest, IdleConnectionsCloseGracefullyAtTheEnd) {
  // The idle keep-alive connections end with a FIN (the client's side then waits in TIME_WAIT as
  // any well-behaved client's does): only abandoned attempts are reset.
  HttpTestServer server([](const HttpRequest&) { return TestReply{}; });
  {
    HttpWorkload workload({.target = server.address()});
    RunResult r = RunConstant(workload, 50, 0.2, milliseconds(2000));
    EXPECT_EQ(r.ok, 10u);
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (LingeringClientSockets(server.port()) == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_GE(LingeringClientSockets(server.port()), 1);
}

TEST(HttpWorkloadTest, KeepAliveReusesConnections) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{}; });
  HttpWorkload workload({.target = server.address(), .path = "/work"});
  RunResult r = RunConstant(workload, 100, 2, milliseconds(2000));
  EXPECT_EQ(r.ok, 200u);
  EXPECT_EQ(server.requests(), 200);
  EXPECT_GE(server.accepted_connections(), 1);
  EXPECT_LE(server.accepted_connections(), 20);  // << 200 requests
  const HttpWorkloadStats stats = workload.stats();
  EXPECT_EQ(stats.requests_sent, 200u);
  EXPECT_EQ(stats.connections_opened, static_cast<std::uint64_t>(server.accepted_connections()));
  EXPECT_EQ(stats.reused, 200u - stats.connections_opened);
}

TEST(HttpWorkloadTest, ConnectionCloseIsHonoured) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{.close = true}; });
  HttpWorkload workload({.target = server.address()});
  RunResult r = RunConstant(workload, 20, 1, milliseconds(2000));
  EXPECT_EQ(r.ok, 20u);
  EXPECT_EQ(server.accepted_connections(), 20);
  EXPECT_EQ(workload.stats().reused, 0u);
}

TEST(HttpWorkloadTest, StaleKeepAliveConnectionIsResentOnceOnAFreshOne) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{.close_silently = true}; });
  HttpWorkload workload({.target = server.address()});
  RunResult r = RunConstant(workload, 10, 1, milliseconds(2000));
  EXPECT_EQ(r.ok, 10u);
  EXPECT_EQ(server.requests(), 10);
  EXPECT_GE(workload.stats().stale_resends, 1u);
}

TEST(HttpWorkloadTest, ConnectionRefusedIsNotSentAndNotIndeterminate) {
  HttpWorkload workload({.target = "127.0.0.1:" + std::to_string(FreeLoopbackPort())});
  RunResult r = RunConstant(workload, 10, 0.5, milliseconds(1000));
  EXPECT_EQ(r.issued, 5u);
  EXPECT_EQ(FailuresByCode(r), (std::map<CallCode, std::uint64_t>{{kCodeNotSent, 5}}));
  EXPECT_EQ(Indeterminate(r), 0u);  // never sent: certainly not applied
  EXPECT_EQ(workload.stats().connections_opened, 0u);
}

TEST(HttpWorkloadTest, OnFinalSeesTheKeptHeadersAndWhenTheRequestWasWritten) {
  HttpTestServer server([](const HttpRequest& r) {
    if (r.target == "/shed") {
      return TestReply{.status = 429, .body = "ERR", .headers = {{"Retry-After", "5"}, {"X-Other", "x"}}};
    }
    return TestReply{.status = 200, .body = "fine", .delay = milliseconds(20)};
  });
  struct Seen {
    int status = 0;
    HttpHeaders headers;
    bool sent = false;
    bool sent_in_order = false;  // intended <= sent_at <= completed
    milliseconds from_sent{0};
  };
  std::mutex mu;
  std::map<std::uint64_t, Seen> seen;
  HttpWorkload workload({.target = server.address(),
                         .make_request = [](std::uint64_t n) { return HttpRequest{.target = n % 2 ? "/ok" : "/shed"}; },
                         .keep_headers = {"retry-after"},
                         .on_final = [&](const HttpCallResult& call, const FinalOutcome& outcome) {
                           std::lock_guard<std::mutex> lock(mu);
                           Seen& s = seen[call.sequence];
                           s.status = call.status;
                           s.headers.assign(call.headers.begin(), call.headers.end());
                           s.sent = call.sent_at.has_value();
                           if (s.sent) {
                             s.sent_in_order = outcome.intended <= *call.sent_at && *call.sent_at <= outcome.completed;
                             s.from_sent = std::chrono::duration_cast<milliseconds>(outcome.completed - *call.sent_at);
                           }
                         }});
  RunResult r = RunConstant(workload, 20, 0.5, milliseconds(2000));
  ASSERT_EQ(r.issued, 10u);
  ASSERT_EQ(seen.size(), 10u);
  for (const auto& [sequence, s] : seen) {
    EXPECT_TRUE(s.sent) << "call " << sequence;
    EXPECT_TRUE(s.sent_in_order) << "call " << sequence;
    if (sequence % 2 == 0) {
      EXPECT_EQ(s.status, 429);
      // Only the kept field, in the server's spelling; Content-Type and X-Other are not copied.
      EXPECT_EQ(s.headers, (HttpHeaders{{"Retry-After", "5"}})) << "call " << sequence;
    } else {
      EXPECT_EQ(s.status, 200);
      EXPECT_TRUE(s.headers.empty()) << "call " << sequence;
      EXPECT_GE(s.from_sent.count(), 19) << "the 20 ms the server took is measured from the send";
    }
  }
}

TEST(HttpWorkloadTest, NoHeadersAreKeptByDefaultAndARefusedCallWasNeverSent) {
  {
    HttpTestServer server([](const HttpRequest&) { return TestReply{.headers = {{"Retry-After", "5"}}}; });
    std::atomic<int> with_headers{0};
    HttpWorkload workload({.target = server.address(), .on_final = [&](const HttpCallResult& call, const FinalOutcome&) {
                             if (!call.headers.empty()) ++with_headers;
                           }});
    RunResult r = RunConstant(workload, 10, 0.3, milliseconds(1000));
    EXPECT_EQ(r.ok, 3u);
    EXPECT_EQ(with_headers.load(), 0);
  }
  std::atomic<int> sent{0}, calls{0};
  HttpWorkload refused({.target = "127.0.0.1:" + std::to_string(FreeLoopbackPort()),
                        .keep_headers = {"Retry-After"},
                        .on_final = [&](const HttpCallResult& call, const FinalOutcome&) {
                          ++calls;
                          if (call.sent_at) ++sent;
                        }});
  RunConstant(refused, 10, 0.3, milliseconds(1000));
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(sent.load(), 0);
  EXPECT_THROW(HttpWorkload({.target = "127.0.0.1:1", .keep_headers = {""}}), std::invalid_argument);
}

TEST(HttpWorkloadTest, RequireBodyTurnsAnEmptySuccessIntoAContractViolation) {
  HttpTestServer server([](const HttpRequest& r) {
    return r.target == "/empty" ? TestReply{.body = ""} : TestReply{.status = 500, .body = ""};
  });
  HttpWorkload workload({.target = server.address(), .path = "/empty", .require_body = true});
  RunResult r = RunConstant(workload, 10, 0.5, milliseconds(1000));
  EXPECT_EQ(FailuresByCode(r), (std::map<CallCode, std::uint64_t>{{kCodeContractViolation, 5}}));
  EXPECT_EQ(Indeterminate(r), 0u);
}

// The default body contract: an empty 2xx answer to a GET is no success (the read-path incident:
// "200s with empty bodies. No 500s"), but 204 says it has no body, other methods are not checked,
// and a target whose contract is an empty answer says so.
TEST(HttpWorkloadTest, AnEmptyTwoHundredToAGetIsAContractViolationByDefault) {
  HttpTestServer server([](const HttpRequest& r) {
    return r.target == "/no-content" ? TestReply{.status = 204, .body = ""} : TestReply{.body = ""};
  });
  {
    HttpWorkload workload({.target = server.address(), .path = "/empty"});
    RunResult r = RunConstant(workload, 10, 0.5, milliseconds(1000));
    EXPECT_EQ(FailuresByCode(r), (std::map<CallCode, std::uint64_t>{{kCodeContractViolation, 5}}));
  }
  for (HttpWorkloadOptions options : {HttpWorkloadOptions{.path = "/no-content"},
                                      HttpWorkloadOptions{.method = "PUT", .path = "/empty"},
                                      HttpWorkloadOptions{.path = "/empty", .allow_empty_body = true}}) {
    options.target = server.address();
    HttpWorkload workload(options);
    RunResult r = RunConstant(workload, 10, 0.5, milliseconds(1000));
    EXPECT_TRUE(FailuresByCode(r).empty()) << options.method << " " << options.path;
    EXPECT_EQ(r.ok, 5u) << options.method << " " << options.path;
  }
}

TEST(HttpWorkloadTest, ValidationHookDecidesTheCode) {
  HttpTestServer server([](const HttpRequest& r) { return TestReply{.body = r.target == "/good" ? "yes" : "no"}; });
  HttpWorkload workload({.target = server.address(),
                         .make_request = [](std::uint64_t n) { return HttpRequest{.target = n % 2 ? "/bad" : "/good"}; },
                         .validate = [](int status, std::string_view body) {
                           return body == "yes" ? status : kCodeContractViolation;
                         }});
  RunResult r = RunConstant(workload, 10, 1, milliseconds(1000));
  EXPECT_EQ(r.ok, 5u);
  EXPECT_EQ(FailuresByCode(r), (std::map<CallCode, std::uint64_t>{{kCodeContractViolation, 5}}));
}

TEST(HttpWorkloadTest, PostCarriesHeadersAndBody) {
  std::mutex mu;
  std::vector<std::string> bodies;
  HttpTestServer server([&](const HttpRequest& r) {
    std::lock_guard<std::mutex> lock(mu);
    bodies.push_back(r.method + " " + r.target + " " + r.body);
    return TestReply{};
  });
  HttpWorkload workload({.target = server.address(), .method = "POST", .path = "/items",
                         .headers = {{"Content-Type", "application/json"}}, .body = "{\"a\":1}"});
  RunResult r = RunConstant(workload, 10, 0.3, milliseconds(1000));
  EXPECT_EQ(r.ok, 3u);
  ASSERT_EQ(bodies.size(), 3u);
  EXPECT_EQ(bodies[0], "POST /items {\"a\":1}");
}

TEST(HttpWorkloadTest, ASmallPoolMakesRequestsWaitForAConnection) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{.delay = milliseconds(50)}; });
  HttpWorkload workload({.target = server.address(), .max_connections = 2});
  RunResult r = RunConstant(workload, 100, 0.2, milliseconds(5000));
  EXPECT_EQ(r.ok, 20u);
  EXPECT_LE(server.accepted_connections(), 2);
  EXPECT_GT(workload.stats().waited_for_connection, 0u);
}

TEST(HttpWorkloadTest, ADeadlineAfterWaitingForAPoolConnectionIsTheGenerators) {
  // Pool of 1, a handler slower than the deadline: call 1 (sent at once) hits the service's deadline;
  // calls 2-4 wait for the connection, get it as the one before times out, and hit their own
  // deadline on the wire: their deadline went to the generator's pool, not to the service.
  HttpTestServer server([](const HttpRequest&) { return TestReply{.delay = milliseconds(1500)}; });
  HttpWorkload workload({.target = server.address(), .max_connections = 1});
  RunResult r = RunConstant(workload, 20, 0.2, milliseconds(300));
  EXPECT_EQ(r.issued, 4u);
  EXPECT_EQ(FailuresByCode(r),
            (std::map<CallCode, std::uint64_t>{{kCodeDeadlineExceeded, 1}, {kCodeGeneratorPoolWaitDeadline, 3}}));
  EXPECT_EQ(r.failed, 1u);
  EXPECT_EQ(r.generator_failed, 3u);
  EXPECT_EQ(r.health.pool_waits, 3u);
  EXPECT_EQ(r.health.pool_waited_then_deadline, 3u);
  EXPECT_TRUE(r.health.generator_limited);
  EXPECT_NE(r.health.reason.find("3 hit their deadline after waiting there"), std::string::npos) << r.health.reason;
}

TEST(HttpWorkloadTest, AnAttemptStillWaitingForAPoolConnectionAtItsDeadlineIsNotTheServices) {
  // One long call (deadline 3 s) holds the only connection for 1 s; a second runner's calls with a
  // 300 ms deadline find the pool full and reach their deadline still waiting: never sent.
  HttpTestServer server([](const HttpRequest&) { return TestReply{.delay = milliseconds(1000)}; });
  HttpWorkload workload({.target = server.address(), .max_connections = 1});
  RunResult holder;
  std::thread holding([&] { holder = RunConstant(workload, 1, 1, milliseconds(3000)); });
  std::this_thread::sleep_for(milliseconds(100));
  RunResult r = RunConstant(workload, 20, 0.2, milliseconds(300));
  holding.join();
  EXPECT_EQ(holder.ok, 1u);
  EXPECT_EQ(r.issued, 4u);
  EXPECT_EQ(r.ok, 0u);
  EXPECT_EQ(r.failed, 0u);  // none of it is the service's
  EXPECT_EQ(r.generator_failed, 4u);
  EXPECT_EQ(FailuresByCode(r), (std::map<CallCode, std::uint64_t>{{kCodeGeneratorPoolTimeout, 4}}));
  EXPECT_EQ(Indeterminate(r), 0u);  // never sent: nothing the service could have acted on
  std::uint64_t generator_failed = 0;
  for (const auto& second : r.timeline.seconds()) generator_failed += second.generator_failed;
  EXPECT_EQ(generator_failed, 4u);  // visible in the timeline, apart from `failed`
  EXPECT_EQ(r.health.pool_wait_timeouts, 4u);
  EXPECT_EQ(r.health.generator_failed, 4u);
  EXPECT_GE(r.health.pool_wait_ms_total, 4 * 250.0);
  EXPECT_TRUE(r.health.generator_limited);
  EXPECT_NE(r.health.reason.find("4 attempts timed out waiting for a free connection in the generator's own pool"),
            std::string::npos)
      << r.health.reason;
  EXPECT_EQ(server.requests(), 1);  // only the holder reached the service
  EXPECT_EQ(workload.stats().timed_out_waiting_for_connection, 4u);
}

TEST(HttpWorkloadTest, RunnerOffersExactCountsAt200PerSecond) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{}; });
  HttpWorkload workload({.target = server.address(), .path = "/work", .max_connections = 400});
  RunResult r = RunConstant(workload, 200, 2, milliseconds(2000));
  // A later second may hold the completions of the last arrivals (by completion time), no offers.
  ASSERT_GE(r.timeline.seconds().size(), 2u);
  EXPECT_EQ(r.timeline.seconds()[0].offered, 200u);
  EXPECT_EQ(r.timeline.seconds()[1].offered, 200u);
  for (std::size_t s = 2; s < r.timeline.seconds().size(); ++s) EXPECT_EQ(r.timeline.seconds()[s].offered, 0u) << s;
  EXPECT_EQ(r.issued, 400u);
  EXPECT_EQ(r.ok, 400u);
  EXPECT_EQ(r.failed, 0u);
  EXPECT_EQ(r.shed, 0u);
  EXPECT_EQ(server.requests(), 400);
  // The pool reports its last write; the run's last request sent is at or after it (and inside the run).
  ASSERT_TRUE(workload.LastSent().has_value());
  EXPECT_GE(r.last_sent_ns, 1'900'000'000);
  EXPECT_LT(r.last_sent_ns, 3'000'000'000);
}

TEST(HttpWorkloadTest, RefusesNonLoopbackAndMalformedTargets) {
  EXPECT_THROW(HttpWorkload({.target = "10.1.2.3:80"}), std::invalid_argument);
  EXPECT_THROW(HttpWorkload({.target = "example.com:80"}), std::invalid_argument);
  EXPECT_THROW(HttpWorkload({.target = "127.0.0.1"}), std::invalid_argument);
  EXPECT_THROW(HttpWorkload({.target = "127.0.0.1:99999"}), std::invalid_argument);
  EXPECT_THROW(HttpWorkload({.target = "127.0.0.1:80", .max_connections = 0}), std::invalid_argument);
  EXPECT_NO_THROW(HttpWorkload({.target = "127.0.0.2:80"}));
  EXPECT_NO_THROW(HttpWorkload({.target = "[::1]:80"}));
}

TEST(HttpOutcomePolicyTest, SuccessIs2xxNothingIsRetriedDeadlineAndTransportAreIndeterminate) {
  const OutcomePolicy policy = HttpOutcomePolicy();
  EXPECT_TRUE(policy.is_success(200));
  EXPECT_TRUE(policy.is_success(299));
  EXPECT_FALSE(policy.is_success(199));
  EXPECT_FALSE(policy.is_success(300));
  EXPECT_FALSE(policy.is_success(500));
  EXPECT_FALSE(policy.is_success(kCodeOk));
  EXPECT_TRUE(policy.retryable.empty());
  EXPECT_EQ(policy.indeterminate,
            (std::set<CallCode>{kCodeDeadlineExceeded, kCodeTransportError, kCodeGeneratorPoolWaitDeadline}));
  const OutcomePolicy custom = HttpOutcomePolicy([](CallCode c) { return c == 204; }, {503});
  EXPECT_TRUE(custom.is_success(204));
  EXPECT_FALSE(custom.is_success(200));
  EXPECT_EQ(custom.retryable, (std::set<CallCode>{503}));
}

TEST(HttpOutcomePolicyTest, RetryableStatusIsRetriedByTheRunner) {
  // Each call's first attempt gets 503, its retry 200: decided per call (its own path), so calls that
  // overlap on a slow machine cannot take each other's answer.
  std::mutex mu;
  std::set<std::string> answered;
  HttpTestServer server([&](const HttpRequest& request) {
    std::lock_guard<std::mutex> lock(mu);
    return answered.insert(request.target).second ? TestReply{.status = 503} : TestReply{.status = 200};
  });
  HttpWorkload workload({.target = server.address(), .make_request = [](std::uint64_t n) {
                           return HttpRequest{.target = "/call/" + std::to_string(n)};
                         }});
  RunnerOptions options;
  options.profile = RateProfile::Constant(5, 1);
  options.call_deadline = milliseconds(2000);
  options.policy = HttpOutcomePolicy(IsHttpSuccess, {503});
  options.policy.initial_backoff = milliseconds(1);
  RunClock clock = RunClock::StartNow();
  RunResult r = OpenModelRunner(workload, options, clock).Run();
  EXPECT_EQ(r.ok, 5u);
  EXPECT_EQ(r.retries, 5u);
  EXPECT_EQ(server.requests(), 10);
}

}  // namespace
}  // namespace aftershock::load
