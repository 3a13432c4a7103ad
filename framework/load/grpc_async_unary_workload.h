// GrpcAsyncUnaryWorkload: any unary method of any generated gRPC stub, driven through a
// CompletionQueue that the open-model runner polls on its own dispatcher thread.
//
// The same hooks as GrpcUnaryWorkload, except that the call is prepared on the stub's async API
// (PrepareAsync<Method>) instead of started on its callback API. One thread then sends every call and
// sees every completion: no gRPC callback threads, no wake-up handed from one thread to another per
// call, which roughly halves the generator's CPU per call at thousands of calls a second
// (docs/benchmarks.md). The price is that a completion is timed when the dispatcher next polls, up
// to RunnerOptions::poll_slack (2 ms) after it arrived; GrpcUnaryWorkload times it at once on gRPC's
// threads. Prefer this one for high rates, the callback one where sub-millisecond latency matters.
//
//   GrpcAsyncUnaryWorkload<CreateRequest, Pseudonym> workload({
//       .make_request = [](std::uint64_t n) { CreateRequest r; r.set_original_value(Fresh(n)); return r; },
//       .prepare = [&](std::uint64_t n, grpc::ClientContext* ctx, const CreateRequest& req,
//                      grpc::CompletionQueue* cq) {
//         return stubs[n % stubs.size()]->PrepareAsyncCreate(ctx, req, cq);
//       },
//       .on_success = [&](const CreateRequest& req, const Pseudonym& resp, const FinalOutcome& o) {
//         ledger.RecordAcknowledged({req.original_value(), resp.pseudonym_value(), UnixMs(o.completed)});
//       },
//       .idempotency = Idempotency::kIdempotent,
//   });
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_GRPC_ASYNC_UNARY_WORKLOAD_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_GRPC_ASYNC_UNARY_WORKLOAD_H_

#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <utility>
#if defined(__SANITIZE_THREAD__)
#include <mutex>
#endif

#include "framework/load/internal/grpc_unary_hooks.h"
#include "framework/load/workload.h"

namespace aftershock::load {

namespace internal {
// Waits on `cq` until `until` (steady clock) at the latest, calling `on_event(tag, ok)` for each
// completion: the part of the workload that does not depend on the message types.
void PollCompletionQueueUntil(grpc::CompletionQueue& cq, Clock::time_point until,
                              const std::function<void(void* tag, bool ok)>& on_event);
// Shuts `cq` down and drains it (the destructor's duty: gRPC asserts a queue is empty when freed).
void ShutdownCompletionQueue(grpc::CompletionQueue& cq);
}  // namespace internal

template <typename Request, typename Response>
class GrpcAsyncUnaryWorkload : public Workload {
 public:
  struct Hooks {
    std::function<Request(std::uint64_t sequence)> make_request;
    // Prepares (does not start) the call on `cq`: typically stub->PrepareAsync<Method>(ctx, req, cq).
    std::function<std::unique_ptr<grpc::ClientAsyncResponseReader<Response>>(
        std::uint64_t sequence, grpc::ClientContext*, const Request&, grpc::CompletionQueue*)>
        prepare;
    // Optional: may turn an OK into kCodeContractViolation (e.g. an empty pseudonym).
    std::function<CallCode(const Request&, const Response&)> validate;
    std::function<void(const Request&, const Response&, const FinalOutcome&)> on_success;
    std::function<void(const Request&, const FinalOutcome&)> on_indeterminate;
    // As in GrpcUnaryWorkload (workload.h): the default policy retries UNAVAILABLE.
    Idempotency idempotency = Idempotency::kUndeclared;
  };

  explicit GrpcAsyncUnaryWorkload(Hooks hooks) : hooks_(std::move(hooks)) {}
  ~GrpcAsyncUnaryWorkload() override { internal::ShutdownCompletionQueue(cq_); }

  std::unique_ptr<CallState> NewCall(std::uint64_t sequence) override {
    return internal::NewUnaryCall<State>(hooks_, sequence);
  }

  // From the dispatcher or the runner's retry thread; the completion comes through the queue.
  void Issue(CallState& call, const Attempt& attempt, AttemptDone done) override {
    auto& state = static_cast<State&>(call);
    internal::StartAttempt(state, attempt);
    state.done = done;
    state.reader = hooks_.prepare(attempt.sequence, state.context.get(), state.request, &cq_);
    grpc::ClientAsyncResponseReader<Response>* const reader = state.reader.get();
    // The queue orders all of this before the completion, out of ThreadSanitizer's sight (the retry
    // thread issues, the dispatcher completes and frees the state). A HappensBefore mark
    // (common/happens_before.h) cannot be placed: StartCall and Finish read the context and the
    // reader after any mark before them, and once Finish has handed the tag over, the completion (and
    // the state's end) may come before Finish returns. So under ThreadSanitizer the state's
    // issue_order is held across both, and the poller passes through it first (IssueOrder).
    const typename IssueOrder::Hold hold(state.issue_order);
    reader->StartCall();
    reader->Finish(&state.response, &state.status, &state);
  }

  bool PolledByDispatcher() const override { return true; }

  void PollCompletionsUntil(Clock::time_point until) override {
    internal::PollCompletionQueueUntil(cq_, until, [this](void* tag, bool ok) {
      auto& state = *static_cast<State*>(tag);
      state.issue_order.Await();
      // Finish's event is always ok (the status says how the call ended); a false one means the
      // queue gave the call up, which is the transport's failure.
      const CallCode code = ok ? internal::AttemptCode(hooks_, state.status, state.request, state.response)
                               : kCodeTransportError;
      state.reader.reset();
      state.done(code);  // last: the state may be gone after this
    });
  }

  Idempotency CallIdempotency() const override { return hooks_.idempotency; }

  void OnFinal(CallState& call, const FinalOutcome& outcome) override {
    auto& state = static_cast<State&>(call);
    internal::DeliverFinal(hooks_, state.request, state.response, outcome);
  }

 private:
  // With -fsanitize=thread a mutex that the issuing thread holds from the start of a call until Finish
  // has returned, and that the poller takes (and drops) before it touches the call: the edge
  // ThreadSanitizer sees in place of the queue's. Empty otherwise, where the queue's order is enough.
  class IssueOrder {
   public:
#if defined(__SANITIZE_THREAD__)
    class Hold {
     public:
      explicit Hold(IssueOrder& order) : lock_(order.mu_) {}

     private:
      std::lock_guard<std::mutex> lock_;
    };
    void Await() { std::lock_guard<std::mutex> lock(mu_); }

   private:
    std::mutex mu_;
#else
    class Hold {
     public:
      explicit Hold(IssueOrder&) {}
    };
    void Await() {}
#endif
  };

  struct State : CallState {
    Request request;
    Response response;
    grpc::Status status;
    std::unique_ptr<grpc::ClientContext> context;
    std::unique_ptr<grpc::ClientAsyncResponseReader<Response>> reader;
    AttemptDone done;
    [[no_unique_address]] IssueOrder issue_order;
  };
  Hooks hooks_;
  grpc::CompletionQueue cq_;
};

}  // namespace aftershock::load

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_GRPC_ASYNC_UNARY_WORKLOAD_H_
