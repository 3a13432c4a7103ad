// BlockingWorkload: plugs a synchronous client (libpq, a blocking socket client, a vendor SDK) into
// the open-model runner, which must never wait for a response.
//
// The user gives one blocking function: make the call, within `timeout`, and say how it ended. The
// adapter owns a bounded pool of worker threads and a bounded queue in front of it: Issue only
// enqueues (the dispatcher never blocks), a worker runs the call with what is left of the call's
// deadline as its timeout, and the answer goes back to the runner. When the pool cannot keep up the
// wait is the generator's, not the service's: an attempt that finds the queue full, or is still
// queued at its deadline, completes as kCodeGeneratorPoolTimeout (never sent); one that waited for a
// worker and then ran into its deadline as kCodeGeneratorPoolWaitDeadline. The runner counts both
// apart from the service's failures and flags the run generator-limited (GeneratorWaits()).
// A call that returns after its deadline (a client that ignored the timeout) counts as
// kCodeDeadlineExceeded, as the caller would have given up; see stats().overran_deadline.
//
//   BlockingWorkload workload({
//       .call = [&](const BlockingCallContext& c) -> BlockingCallResult {
//         HttpReply r = HttpFetch(addr, {.method = "PUT", .target = "/kv/k" + std::to_string(c.sequence),
//                                        .body = "v"}, c.timeout);
//         return {.code = r.status != 0 ? r.status : kCodeTransportError, .value = r.body};
//       },
//       .workers = 64,
//       .on_final = [&](const BlockingCallContext& c, const BlockingCallResult& last, const FinalOutcome& o) {
//         if (o.ok) ledger.RecordAcknowledged(...);
//       },
//       .idempotency = Idempotency::kIdempotent,
//   });
//   RunResult result = OpenModelRunner(workload, options, RunClock::StartNow()).Run();
//
// Size workers x (1 / the call's latency) above the offered rate, and workers + queue_capacity to
// the runner's in-flight ceiling. The destructor completes what is still queued (as never sent) and
// joins every worker: each waits for its current call, so the call must honour its timeout.
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_BLOCKING_WORKLOAD_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_BLOCKING_WORKLOAD_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "framework/common/call_code.h"
#include "framework/load/workload.h"

namespace aftershock::load {

// What one attempt's blocking call gets.
struct BlockingCallContext {
  std::uint64_t sequence = 0;  // the call's number (the same for every attempt)
  int attempt = 1;
  Clock::time_point deadline{};                          // the call's absolute deadline
  std::chrono::system_clock::time_point wall_deadline{};  // the same on the system clock
  // What is left of the deadline when the worker starts the attempt (at least 1 ms): hand it to the
  // client's own timeout (PQ statement_timeout, SO_RCVTIMEO, the SDK's per-call timeout).
  std::chrono::milliseconds timeout{1};
};

// How the call ended; `value` is whatever the call returned (a body, an id), passed to on_final.
struct BlockingCallResult {
  CallCode code = kCodeUnknown;
  std::string value{};
};

struct BlockingWorkloadOptions {
  // The blocking call; runs on a worker thread, concurrently on up to `workers` threads. Must return
  // within ctx.timeout (or soon after). An exception counts as kCodeUnknown (indeterminate).
  std::function<BlockingCallResult(const BlockingCallContext& ctx)> call{};
  int workers = 16;
  // Attempts that may wait for a worker; an attempt that finds it full is never sent.
  std::size_t queue_capacity = 1024;
  // Optional: hears every call's final outcome with the last attempt's context and result.
  std::function<void(const BlockingCallContext&, const BlockingCallResult&, const FinalOutcome&)> on_final{};
  // Whether the call may be repeated (workload.h). Must be declared when the policy retries a code
  // that may have been applied.
  Idempotency idempotency = Idempotency::kUndeclared;
};

struct BlockingWorkloadStats {
  std::uint64_t started = 0;              // attempts a worker ran
  std::uint64_t waited_for_worker = 0;    // attempts that found no idle worker and queued
  std::uint64_t rejected_queue_full = 0;  // attempts that found the queue full (never sent)
  std::uint64_t timed_out_in_queue = 0;   // attempts still queued at their deadline (never sent)
  std::uint64_t waited_then_timed_out = 0;  // queued, then ran into the deadline
  std::uint64_t overran_deadline = 0;     // calls that returned after their deadline
  std::uint64_t exceptions = 0;           // calls that threw
  std::string first_exception{};
  std::size_t peak_queue = 0;
  std::chrono::nanoseconds wait_total{0};
  std::chrono::nanoseconds wait_max{0};
};

class BlockingWorkload : public Workload {
 public:
  // Starts the workers. Throws std::invalid_argument for a missing call or workers < 1.
  explicit BlockingWorkload(BlockingWorkloadOptions options);
  ~BlockingWorkload() override;
  BlockingWorkload(const BlockingWorkload&) = delete;
  BlockingWorkload& operator=(const BlockingWorkload&) = delete;

  std::unique_ptr<CallState> NewCall(std::uint64_t sequence) override;
  void Issue(CallState& call, const Attempt& attempt, AttemptDone done) override;
  void OnFinal(CallState& call, const FinalOutcome& outcome) override;
  GeneratorWaitStats GeneratorWaits() const override;
  Idempotency CallIdempotency() const override { return options_.idempotency; }
  // When a worker last started a call (queued attempts are sent later than Issue).
  std::optional<Clock::time_point> LastSent() const override;

  BlockingWorkloadStats stats() const;
  int workers() const { return options_.workers; }

 private:
  struct State;
  struct Job {
    State* state = nullptr;
    BlockingCallContext context;
    Clock::time_point enqueued;
    bool waited = false;  // no worker was idle when it arrived
    AttemptDone done;
  };
  void WorkerLoop();
  void RunJob(Job& job);

  BlockingWorkloadOptions options_;
  mutable std::mutex mu_;
  std::atomic<Clock::rep> last_sent_{0};  // Clock ticks since its epoch of the last call started; 0: none
  std::condition_variable work_ready_;
  std::deque<Job> queue_;
  int idle_ = 0;
  bool stopping_ = false;
  BlockingWorkloadStats stats_;
  std::vector<std::thread> threads_;
};

}  // namespace aftershock::load

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_BLOCKING_WORKLOAD_H_
