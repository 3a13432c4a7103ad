// GrpcUnaryWorkload: plugs any unary method of any generated gRPC stub into the open-model runner.
//
// Supply how to build a request for call n, how to start the call on the stub's callback API, and
// what to do with the outcome (record the promise on success, the unknown on an indeterminate
// failure). The runner does the rest: schedule, deadline, retries, timing.
//
//   GrpcUnaryWorkload<CreateRequest, Pseudonym> workload({
//       .make_request = [](std::uint64_t n) { CreateRequest r; r.set_original_value(Fresh(n)); return r; },
//       .start = [&](std::uint64_t n, grpc::ClientContext* ctx, const CreateRequest* req, Pseudonym* resp,
//                    std::function<void(grpc::Status)> done) {
//         stubs[n % stubs.size()]->async()->Create(ctx, req, resp, std::move(done));
//       },
//       .on_success = [&](const CreateRequest& req, const Pseudonym& resp, const FinalOutcome& o) {
//         ledger.RecordAcknowledged({req.original_value(), resp.pseudonym_value(), UnixMs(o.completed)});
//       },
//       .idempotency = Idempotency::kIdempotent,   // Create(x) twice issues one pseudonym
//   });
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_GRPC_UNARY_WORKLOAD_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_GRPC_UNARY_WORKLOAD_H_

#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <utility>

#include "framework/common/happens_before.h"
#include "framework/load/internal/grpc_unary_hooks.h"
#include "framework/load/workload.h"

namespace aftershock::load {

template <typename Request, typename Response>
class GrpcUnaryWorkload : public Workload {
 public:
  struct Hooks {
    std::function<Request(std::uint64_t sequence)> make_request;
    std::function<void(std::uint64_t sequence, grpc::ClientContext*, const Request*, Response*,
                       std::function<void(grpc::Status)>)>
        start;
    // Optional: may turn an OK into kCodeContractViolation (e.g. an empty pseudonym).
    std::function<CallCode(const Request&, const Response&)> validate;
    std::function<void(const Request&, const Response&, const FinalOutcome&)> on_success;
    std::function<void(const Request&, const FinalOutcome&)> on_indeterminate;
    // Whether the method may be called twice (workload.h): the default policy retries UNAVAILABLE,
    // so the runner refuses an undeclared workload under it.
    Idempotency idempotency = Idempotency::kUndeclared;
  };

  explicit GrpcUnaryWorkload(Hooks hooks) : hooks_(std::move(hooks)) {}

  std::unique_ptr<CallState> NewCall(std::uint64_t sequence) override {
    return internal::NewUnaryCall<State>(hooks_, sequence);
  }

  void Issue(CallState& call, const Attempt& attempt, AttemptDone done) override {
    auto& state = static_cast<State&>(call);
    internal::StartAttempt(state, attempt);
    grpc::ClientContext* const context = state.context.get();
    // gRPC orders the start before the callback, out of ThreadSanitizer's sight (docs/sanitizers.md):
    // without these it reported the runner's retry thread reading what the issuing thread wrote.
    // Last before the start: what this thread touches after it is not covered.
    HappensBefore(&state);
    hooks_.start(attempt.sequence, context, &state.request, &state.response,
                 [this, &state, done](grpc::Status status) {
                   HappensAfter(&state);
                   // Last: the state may be gone after done().
                   done(internal::AttemptCode(hooks_, status, state.request, state.response));
                 });
  }

  Idempotency CallIdempotency() const override { return hooks_.idempotency; }

  void OnFinal(CallState& call, const FinalOutcome& outcome) override {
    auto& state = static_cast<State&>(call);
    internal::DeliverFinal(hooks_, state.request, state.response, outcome);
  }

 private:
  struct State : CallState {
    Request request;
    Response response;
    std::unique_ptr<grpc::ClientContext> context;
  };
  Hooks hooks_;
};

}  // namespace aftershock::load

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_GRPC_UNARY_WORKLOAD_H_
