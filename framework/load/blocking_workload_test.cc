#include "framework/load/blocking_workload.h"

#include <gtest/gtest.h>

#include <dirent.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "framework/load/open_model_runner.h"

namespace aftershock::load {
namespace {

using std::chrono::milliseconds;

int ThreadCount() {
  int n = 0;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n;
}

RunnerOptions Options(double rate, double seconds, milliseconds deadline) {
  RunnerOptions o;
  o.profile = RateProfile::Constant(rate, seconds);
  o.call_deadline = deadline;
  o.max_in_flight = 10000;
  o.policy.retryable = {};
  o.drain_grace = milliseconds(2000);
  return o;
}

std::uint64_t Count(const RunResult& r, CallCode code) {
  std::uint64_t n = 0;
  for (const auto& s : r.timeline.seconds()) {
    auto it = s.failed_by_code.find(code);
    if (it != s.failed_by_code.end()) n += it->second;
  }
  return n;
}

TEST(BlockingWorkloadTest, CallsRunOnTheWorkersAndOnFinalSeesTheirResults) {
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::set<std::string> values;
  BlockingWorkload workload({
      .call = [&](const BlockingCallContext& c) {
        std::this_thread::sleep_for(milliseconds(2));
        std::lock_guard<std::mutex> lock(mu);
        threads.insert(std::this_thread::get_id());
        return BlockingCallResult{kCodeOk, "v" + std::to_string(c.sequence)};
      },
      .workers = 4,
      .on_final = [&](const BlockingCallContext& c, const BlockingCallResult& last, const FinalOutcome& o) {
        std::lock_guard<std::mutex> lock(mu);
        if (o.ok && last.value == "v" + std::to_string(c.sequence)) values.insert(last.value);
      },
  });
  RunnerOptions options = Options(100, 1, milliseconds(1000));
  options.max_lag_p99_ms = 500;  // generous: the dispatcher's wake-ups on a loaded shared machine (48 ms seen)
  RunResult r = OpenModelRunner(workload, options, RunClock::StartNow()).Run();
  EXPECT_EQ(r.ok, 100u);
  EXPECT_EQ(r.failed + r.generator_failed, 0u);
  EXPECT_EQ(values.size(), 100u);
  EXPECT_FALSE(threads.count(std::this_thread::get_id()));  // never on the dispatcher
  EXPECT_LE(threads.size(), 4u);
  EXPECT_EQ(workload.stats().started, 100u);
  EXPECT_FALSE(r.health.generator_limited) << r.health.reason;
  // A worker's start is the send: the run's last request sent is the latest of them.
  ASSERT_TRUE(workload.LastSent().has_value());
  EXPECT_GE(r.last_sent_ns, 900'000'000);
}

TEST(BlockingWorkloadTest, TheTimeoutIsWhatIsLeftOfTheDeadlineAndAnOverrunIsDeadlineExceeded) {
  std::atomic<std::int64_t> max_timeout_ms{0}, min_timeout_ms{1'000'000};
  BlockingWorkload workload({
      .call = [&](const BlockingCallContext& c) {
        max_timeout_ms = std::max<std::int64_t>(max_timeout_ms, c.timeout.count());
        min_timeout_ms = std::min<std::int64_t>(min_timeout_ms, c.timeout.count());
        // Even calls honour the timeout; odd ones ignore it (a client without a timeout).
        if (c.sequence % 2 == 0) {
          std::this_thread::sleep_for(c.timeout);
          return BlockingCallResult{kCodeDeadlineExceeded, ""};
        }
        std::this_thread::sleep_for(milliseconds(1200));
        return BlockingCallResult{kCodeOk, "late"};
      },
      .workers = 16,
  });
  RunResult r = OpenModelRunner(workload, Options(10, 1, milliseconds(600)), RunClock::StartNow()).Run();
  EXPECT_EQ(r.ok, 0u);  // a late OK is not an answer the caller saw
  // On a busy host a call may wait for a worker past its deadline: a generator-side failure (seen in
  // a fresh-clone run beside two cluster tests, and under two CPU hogs), not counted in `failed` and
  // not what this test is about. Every other call fails DEADLINE_EXCEEDED, late OKs included.
  EXPECT_LE(r.generator_failed, 2u);
  EXPECT_EQ(r.failed + r.generator_failed, 10u);
  EXPECT_EQ(Count(r, kCodeDeadlineExceeded), r.failed);
  EXPECT_GE(workload.stats().overran_deadline + r.generator_failed, 5u);
  EXPECT_LE(workload.stats().overran_deadline, 5u);
  EXPECT_LE(max_timeout_ms.load(), 600);
  EXPECT_GT(min_timeout_ms.load(), 0);  // what is left of the deadline, never nothing
}

TEST(BlockingWorkloadTest, AFullPoolIsTheGeneratorsFailureNotTheServices) {
  BlockingWorkload workload({
      .call = [](const BlockingCallContext& c) {
        const auto work = std::min<milliseconds>(milliseconds(150), c.timeout);
        std::this_thread::sleep_for(work);
        return BlockingCallResult{work < milliseconds(150) ? kCodeDeadlineExceeded : kCodeOk, ""};
      },
      .workers = 1,
      .queue_capacity = 3,
  });
  RunResult r = OpenModelRunner(workload, Options(40, 1, milliseconds(400)), RunClock::StartNow()).Run();
  const BlockingWorkloadStats s = workload.stats();
  EXPECT_EQ(r.failed, 0u) << "saturation must not be counted as the service's failure";
  EXPECT_GT(r.generator_failed, 20u);
  EXPECT_EQ(r.ok + r.generator_failed, 40u);
  EXPECT_GT(s.rejected_queue_full, 0u);
  EXPECT_EQ(Count(r, kCodeGeneratorPoolTimeout) + Count(r, kCodeGeneratorPoolWaitDeadline), r.generator_failed);
  EXPECT_TRUE(r.health.generator_limited);
  EXPECT_NE(r.health.reason.find("failed on the generator's side"), std::string::npos) << r.health.reason;
  EXPECT_GT(r.health.pool_wait_timeouts, 0u);
}

TEST(BlockingWorkloadTest, AQueuedAttemptPastItsDeadlineIsNeverSent) {
  std::atomic<int> calls{0};
  BlockingWorkload workload({
      .call = [&](const BlockingCallContext&) {
        ++calls;
        std::this_thread::sleep_for(milliseconds(300));  // one worker, a call every 50 ms: the queue grows
        return BlockingCallResult{kCodeOk, ""};
      },
      .workers = 1,
      .queue_capacity = 100,
  });
  RunResult r = OpenModelRunner(workload, Options(20, 0.5, milliseconds(1000)), RunClock::StartNow()).Run();
  const BlockingWorkloadStats s = workload.stats();
  EXPECT_GT(s.timed_out_in_queue, 0u);
  EXPECT_EQ(static_cast<std::uint64_t>(calls.load()), s.started);
  EXPECT_EQ(s.started + s.timed_out_in_queue, 10u);
  EXPECT_EQ(r.failed, 0u);
  EXPECT_EQ(Count(r, kCodeGeneratorPoolTimeout), s.timed_out_in_queue);
}

TEST(BlockingWorkloadTest, ASlowPoolNeverHoldsUpTheDispatcher) {
  BlockingWorkload workload({
      .call = [](const BlockingCallContext&) {
        std::this_thread::sleep_for(milliseconds(50));
        return BlockingCallResult{kCodeOk, ""};
      },
      .workers = 2,
  });
  RunResult r = OpenModelRunner(workload, Options(100, 1, milliseconds(5000)), RunClock::StartNow()).Run();
  EXPECT_EQ(r.issued, 100u);
  EXPECT_EQ(r.ok, 100u);
  // Blocking the dispatcher for 50 ms per call would put the lag in seconds; generous bound.
  EXPECT_LT(r.health.lag_max_ms, 500);
}

TEST(BlockingWorkloadTest, ANonIdempotentCallIsNeverRetriedAfterItMayHaveBeenApplied) {
  std::atomic<int> calls{0};
  BlockingWorkload workload({
      .call = [&](const BlockingCallContext&) {
        ++calls;
        return BlockingCallResult{kCodeUnavailable, ""};
      },
      .workers = 2,
      .idempotency = Idempotency::kNonIdempotent,
  });
  RunnerOptions o = Options(20, 0.5, milliseconds(1000));
  o.policy = OutcomePolicy{};  // retries UNAVAILABLE by default
  RunResult r = OpenModelRunner(workload, o, RunClock::StartNow()).Run();
  EXPECT_EQ(calls.load(), 10);
  EXPECT_EQ(r.retries, 0u);
}

TEST(BlockingWorkloadTest, AnExceptionIsAnUnknownOutcome) {
  BlockingWorkload workload({
      .call = [](const BlockingCallContext&) -> BlockingCallResult { throw std::runtime_error("driver crashed"); },
      .workers = 1,
  });
  RunResult r = OpenModelRunner(workload, Options(10, 0.5, milliseconds(1000)), RunClock::StartNow()).Run();
  EXPECT_EQ(Count(r, kCodeUnknown), 5u);
  EXPECT_EQ(workload.stats().exceptions, 5u);
  EXPECT_EQ(workload.stats().first_exception, "driver crashed");
}

TEST(BlockingWorkloadTest, ShutdownLeavesNoThreadBehind) {
  // A runtime may start a helper thread of its own with the process's first thread (ThreadSanitizer
  // does): start and join one first, so `before` already counts it and only ours are compared.
  std::thread([] {}).join();
  const int before = ThreadCount();
  ASSERT_GT(before, 0);
  {
    BlockingWorkload workload({.call = [](const BlockingCallContext&) { return BlockingCallResult{kCodeOk, ""}; },
                               .workers = 8});
    EXPECT_EQ(ThreadCount(), before + 8);
    RunResult r = OpenModelRunner(workload, Options(50, 0.2, milliseconds(500)), RunClock::StartNow()).Run();
    EXPECT_EQ(r.ok, 10u);
  }
  // The runner's retry timer thread is gone too once both are destroyed.
  EXPECT_EQ(ThreadCount(), before);
}

TEST(BlockingWorkloadTest, BadOptionsAreRefused) {
  EXPECT_THROW(BlockingWorkload({}), std::invalid_argument);
  EXPECT_THROW(BlockingWorkload({.call = [](const BlockingCallContext&) { return BlockingCallResult{}; },
                                 .workers = 0}),
               std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::load
