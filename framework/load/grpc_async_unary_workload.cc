#include "framework/load/grpc_async_unary_workload.h"

#include <chrono>

namespace aftershock::load::internal {

void PollCompletionQueueUntil(grpc::CompletionQueue& cq, Clock::time_point until,
                              const std::function<void(void* tag, bool ok)>& on_event) {
  // Bounded: a queue cannot deliver more events than calls were started, but a bound per poll keeps
  // the dispatcher's next arrival from waiting behind a flood of completions.
  constexpr int kMaxEventsPerPoll = 4096;
  void* tag = nullptr;
  bool ok = false;
  const Clock::duration remaining = until - Clock::now();
  if (remaining < std::chrono::milliseconds(1)) {
    // gRPC rounds a deadline up to its next millisecond tick, so a deadline less than a millisecond
    // away (or just past) can block for a whole tick: measured, a "non-blocking" poll per arrival
    // held a runner to ~860 calls a second. An infinitely past deadline only takes what is ready.
    const gpr_timespec past = gpr_inf_past(GPR_CLOCK_MONOTONIC);
    for (int i = 0; i < kMaxEventsPerPoll && cq.AsyncNext(&tag, &ok, past) == grpc::CompletionQueue::GOT_EVENT; ++i) {
      on_event(tag, ok);
    }
    return;
  }
  // AsyncNext takes a system-clock deadline; the schedule is on the steady clock. It may return up
  // to a tick or two late, which the runner's poll_slack absorbs.
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::duration_cast<std::chrono::system_clock::duration>(remaining);
  for (int i = 0; i < kMaxEventsPerPoll && cq.AsyncNext(&tag, &ok, deadline) == grpc::CompletionQueue::GOT_EVENT; ++i) {
    on_event(tag, ok);
  }
}

void ShutdownCompletionQueue(grpc::CompletionQueue& cq) {
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  // Every call has finished by now (the runner drains before the workload goes): what is left are
  // no events, and Next returns false once the queue is shut down and empty.
  while (cq.Next(&tag, &ok)) {
  }
}

}  // namespace aftershock::load::internal
