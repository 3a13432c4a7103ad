// What the two gRPC unary workloads (grpc_unary_workload.h: callback API; grpc_async_unary_workload.h:
// a polled CompletionQueue) do alike with their hooks: the code of a finished attempt (an OK the
// `validate` hook rejects is a contract violation) and the final outcome's delivery (on_success for
// an ok call, on_indeterminate for one whose effect is unknown), a new call's state and the start of
// each attempt (a fresh ClientContext with the attempt's deadline, an empty response). Hooks is either
// workload's Hooks; State either workload's call state.
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_GRPC_UNARY_HOOKS_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_GRPC_UNARY_HOOKS_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <memory>

#include "framework/common/call_code.h"
#include "framework/load/workload.h"

namespace aftershock::load::internal {

template <typename Hooks, typename Request, typename Response>
CallCode AttemptCode(const Hooks& hooks, const grpc::Status& status, const Request& request, const Response& response) {
  CallCode code = static_cast<CallCode>(status.error_code());
  if (code == kCodeOk && hooks.validate) code = hooks.validate(request, response);
  return code;
}

template <typename Hooks, typename Request, typename Response>
void DeliverFinal(const Hooks& hooks, const Request& request, const Response& response, const FinalOutcome& outcome) {
  if (outcome.ok) {
    if (hooks.on_success) hooks.on_success(request, response, outcome);
  } else if (outcome.indeterminate && hooks.on_indeterminate) {
    hooks.on_indeterminate(request, outcome);
  }
}

template <typename State, typename Hooks>
std::unique_ptr<CallState> NewUnaryCall(const Hooks& hooks, std::uint64_t sequence) {
  auto state = std::make_unique<State>();
  state->request = hooks.make_request(sequence);
  return state;
}

// gRPC allows a ClientContext one call only: every attempt gets its own.
template <typename State>
void StartAttempt(State& state, const Attempt& attempt) {
  state.context = std::make_unique<grpc::ClientContext>();
  state.context->set_deadline(attempt.wall_deadline);
  state.response.Clear();
}

}  // namespace aftershock::load::internal

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_GRPC_UNARY_HOOKS_H_
