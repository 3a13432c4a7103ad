#include "framework/stress/response_recorder.h"

#include <gtest/gtest.h>

#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "framework/load/http_test_server.h"
#include "framework/load/open_model_runner.h"

namespace aftershock::stress {
namespace {

using std::chrono::milliseconds;

struct Fixture {
  RunClock clock = RunClock::StartNow();
  Clock::time_point At(double seconds) const {
    return clock.start() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }
};

TEST(ResponseRecorderTest, JudgesEachShedResponseAgainstTheContract) {
  Fixture f;
  ResponseRecorder recorder(f.clock, {.contract = {.required_headers = {{"Retry-After", "5"}},
                                                   .required_body = "ERR_GATEWAY_OVERLOAD_SHEDDING"}});
  const load::HttpHeaders good = {{"retry-after", " 5 "}};
  const load::HttpHeaders wrong_value = {{"Retry-After", "1"}};
  const std::string body = "{\"error\":\"ERR_GATEWAY_OVERLOAD_SHEDDING\"}";
  auto call = [&](int status, const load::HttpHeaders& headers, std::string_view b, bool ok = false) {
    recorder.Record(CallObservation{.intended = f.At(1),
                                    .completed = f.At(1.002),
                                    .sent_at = f.At(1.0015),
                                    .code = status,
                                    .ok = ok,
                                    .status = status,
                                    .headers = headers,
                                    .body = b});
  };
  call(429, good, body);
  call(503, good, body);
  call(429, {}, body);
  call(429, wrong_value, body);
  call(429, good, "busy");
  call(500, good, body);
  call(200, {}, "paid", true);
  const CallLog log = recorder.Log();
  ASSERT_EQ(log.records.size(), 7u);
  auto flags = [&](std::size_t i) {
    const CallRecord& r = log.records[i];
    return std::vector<bool>{r.ok, r.shed, r.headers_ok, r.body_ok};
  };
  EXPECT_EQ(flags(0), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(flags(1), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(flags(2), (std::vector<bool>{false, true, false, true}));  // no Retry-After
  EXPECT_EQ(flags(3), (std::vector<bool>{false, true, false, true}));  // not the required value
  EXPECT_EQ(flags(4), (std::vector<bool>{false, true, true, false}));  // no diagnostic
  EXPECT_EQ(flags(5), (std::vector<bool>{false, false, false, false}));  // not a shed status
  EXPECT_EQ(flags(6), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(log.records[0].status, 429);
  EXPECT_NEAR(static_cast<double>(log.records[0].latency_ns()), 2e6, 1e3);
  EXPECT_NEAR(static_cast<double>(log.records[0].sent_latency_ns()), 0.5e6, 1e3);
  EXPECT_EQ(recorder.HeaderNames(), (std::vector<std::string>{"Retry-After"}));
}

TEST(ResponseRecorderTest, ACallNeverWrittenHasNoSendLatency) {
  Fixture f;
  ResponseRecorder recorder(f.clock);
  recorder.Record(CallObservation{.intended = f.At(0.5), .completed = f.At(0.6), .code = kCodeNotSent});
  const CallLog log = recorder.Log();
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].sent_ns, -1);
  EXPECT_EQ(log.records[0].sent_latency_ns(), -1);
  EXPECT_EQ(log.records[0].status, 0);
  EXPECT_FALSE(log.records[0].shed);
}

TEST(ResponseRecorderTest, MemoryIsBoundedAndTheLogSaysWhatIsMissing) {
  Fixture f;
  ResponseRecorder recorder(f.clock, {.max_records = 3});
  for (int i = 0; i < 5; ++i) {
    recorder.Record(CallObservation{.intended = f.At(i), .completed = f.At(i + (i == 4 ? 40 : 0.01)), .ok = true,
                                    .status = 200});
  }
  const CallLog log = recorder.Log();
  EXPECT_EQ(log.records.size(), 3u);
  EXPECT_EQ(log.dropped, 2u);
  EXPECT_EQ(recorder.calls(), 5u);
  EXPECT_EQ(log.first_dropped_intended_ns, 3'000'000'000);
  EXPECT_NEAR(static_cast<double>(log.max_latency_ns), 40e9, 1e3) << "the largest latency covers dropped calls";
  EXPECT_TRUE(log.CompleteBefore(3'000'000'000));
  EXPECT_FALSE(log.CompleteBefore(3'000'000'001));
  EXPECT_EQ(log.IncompleteReason(2'000'000'000), "");
  EXPECT_NE(log.IncompleteReason(4'000'000'000).find("raise max_records"), std::string::npos);
}

TEST(ResponseRecorderTest, ManyThreadsRecordWithoutLosingACall) {
  Fixture f;
  ResponseRecorder recorder(f.clock);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5000; ++i) {
        recorder.Record(CallObservation{.intended = f.At(0), .completed = f.At(0.001), .status = 429});
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(recorder.Log().records.size(), 20000u);
}

TEST(ResponseRecorderTest, BadOptionsAreErrors) {
  Fixture f;
  EXPECT_THROW(ResponseRecorder(f.clock, {.max_records = 0}), std::invalid_argument);
  EXPECT_THROW(ResponseRecorder(f.clock, {.contract = {.shed_statuses = {}}}), std::invalid_argument);
  EXPECT_THROW(ResponseRecorder(f.clock, {.contract = {.shed_statuses = {42}}}), std::invalid_argument);
  EXPECT_THROW(ResponseRecorder(f.clock, {.contract = {.required_headers = {{""}}}}), std::invalid_argument);
}

TEST(ResponseRecorderTest, FedByHttpWorkloadItSeesHeadersBodiesAndSendTimes) {
  load::HttpTestServer server([](const load::HttpRequest& r) {
    if (r.target == "/shed") {
      return load::TestReply{.status = 429, .body = "ERR_GATEWAY_OVERLOAD_SHEDDING", .headers = {{"Retry-After", "5"}}};
    }
    if (r.target == "/bare") return load::TestReply{.status = 503, .body = "busy"};
    return load::TestReply{.status = 200, .body = "paid", .delay = milliseconds(5)};
  });
  const RunClock clock = RunClock::StartNow();
  ResponseRecorder recorder(clock, {.contract = {.required_body = "ERR_GATEWAY_OVERLOAD_SHEDDING"}});
  load::HttpWorkload workload(
      {.target = server.address(),
       .make_request = [](std::uint64_t n) { return load::HttpRequest{.target = n % 3 == 0 ? "/shed" : n % 3 == 1 ? "/bare" : "/ok"}; },
       .keep_headers = recorder.HeaderNames(),
       .on_final = [&](const load::HttpCallResult& c, const load::FinalOutcome& o) { recorder.Record(c, o); }});
  load::OpenModelRunner runner(workload,
                               {.profile = load::RateProfile::Constant(30, 0.3),
                                .call_deadline = milliseconds(2000),
                                .policy = load::HttpOutcomePolicy()},
                               clock);
  runner.Run();
  const CallLog log = recorder.Log();
  ASSERT_EQ(log.records.size(), 9u);
  int clean = 0, bare = 0, ok = 0;
  for (const CallRecord& r : log.records) {
    EXPECT_GE(r.sent_ns, r.intended_ns);
    EXPECT_LE(r.sent_ns, r.completed_ns);
    if (r.ok) ++ok;
    if (r.shed && r.headers_ok && r.body_ok && r.status == 429) ++clean;
    if (r.shed && !r.headers_ok && !r.body_ok && r.status == 503) ++bare;
  }
  EXPECT_EQ(clean, 3);
  EXPECT_EQ(bare, 3);
  EXPECT_EQ(ok, 3);
}

}  // namespace
}  // namespace aftershock::stress
