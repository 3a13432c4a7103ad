// What the two gRPC unary workloads (grpc_unary_workload.h: callback API; grpc_async_unary_workload.h:
// a polled CompletionQueue) do alike with their hooks: the code of a finished attempt (an OK the
// `validate` hook rejects is a contract violation) and the final outcome's delivery (on_success for
// an ok call, on_indeterminate for one whose effect is unknown). Hooks is either workload's Hooks.
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_GRPC_UNARY_HOOKS_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_GRPC_UNARY_HOOKS_H_

#include <grpcpp/grpcpp.h>

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

}  // namespace aftershock::load::internal

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_GRPC_UNARY_HOOKS_H_
