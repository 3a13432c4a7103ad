// Workload: what the open-model runner drives. Users plug their own service in here.
//
// A workload turns one arrival into one logical call: it makes the per-call state (the request,
// e.g. a fresh original value), issues attempts without blocking, and hears the final outcome, at
// which point it records the promise the service made (or that the outcome is unknown). The runner
// owns everything else: schedule, in-flight ceiling, deadline, retries, timing and timelines.
//
//   class MyWorkload : public Workload {
//     std::unique_ptr<CallState> NewCall(std::uint64_t sequence) override { ... }
//     void Issue(CallState& call, const Attempt& attempt, AttemptDone done) override {
//       // start an async call with deadline attempt.deadline; on completion: done(code)
//     }
//     void OnFinal(CallState& call, const FinalOutcome& outcome) override {
//       if (outcome.ok) ledger.RecordAcknowledged(...);
//     }
//   };
//
// See framework/load/grpc_unary_workload.h for a ready-made adapter to any generated gRPC stub.
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_WORKLOAD_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_WORKLOAD_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "framework/common/call_code.h"
#include "framework/common/run_clock.h"

namespace aftershock::load {

// Per-call state owned by the runner for the call's whole life (all attempts). Workloads derive.
struct CallState {
  virtual ~CallState() = default;
};

struct Attempt {
  std::uint64_t sequence = 0;
  int number = 1;                  // 1 for the first attempt
  Clock::time_point intended;      // the schedule's send time of the call (not of this attempt)
  Clock::time_point deadline;      // absolute: every attempt of a call shares the call's deadline
  std::chrono::system_clock::time_point wall_deadline;  // the same deadline on the system clock (for gRPC)
};

class OpenModelRunner;
struct InFlightCall;

// Completion handle for one attempt; call exactly once, from any thread. Cheap to copy.
class AttemptDone {
 public:
  AttemptDone() = default;
  void operator()(CallCode code) const;

 private:
  friend class OpenModelRunner;
  AttemptDone(OpenModelRunner* runner, InFlightCall* call) : runner_(runner), call_(call) {}
  OpenModelRunner* runner_ = nullptr;
  InFlightCall* call_ = nullptr;
};

struct FinalOutcome {
  CallCode code = kCodeOk;
  bool ok = false;
  bool indeterminate = false;      // the service may or may not have acted on it (deadline, UNAVAILABLE, ...)
  int attempts = 0;
  Clock::time_point intended;
  Clock::time_point completed;
};

// Waits a workload spent in its own resources (e.g. a connection pool) before an attempt reached the
// service: the generator's time, reported in GeneratorHealth (see Workload::GeneratorWaits).
struct GeneratorWaitStats {
  std::uint64_t waited = 0;     // attempts that waited
  std::uint64_t timed_out = 0;  // attempts that reached their deadline still waiting
  std::uint64_t waited_then_timed_out = 0;  // attempts that waited, were sent, then hit the deadline
  std::chrono::nanoseconds total_wait{0};
  std::chrono::nanoseconds max_wait{0};
};

// Whether repeating a call is harmless: it decides which failures the runner may retry.
//   kIdempotent:    the same call twice has the effect of once (a PUT of a fixed value, an idempotent
//                   Create): every `retryable` code is retried.
//   kNonIdempotent: a second copy could apply twice (an append, a transfer, an INSERT without a key):
//                   a code the policy counts as indeterminate (the first attempt may have been
//                   applied) is never retried; only "certainly not applied" codes (kCodeNotSent, a 429,
//                   ...) that the policy lists as retryable are.
//   kUndeclared:    the default. The runner refuses to start when the policy would retry a code
//                   that may have been applied (the default policy retries UNAVAILABLE): the
//                   workload must say which it is.
enum class Idempotency { kUndeclared, kIdempotent, kNonIdempotent };
std::string_view IdempotencyName(Idempotency idempotency);  // "undeclared" / "idempotent" / "non-idempotent"

class Workload {
 public:
  virtual ~Workload() = default;
  // Called on the dispatcher thread for every arrival that is issued; keep it cheap.
  virtual std::unique_ptr<CallState> NewCall(std::uint64_t sequence) = 0;
  // Start one attempt; must not block; `done` is called exactly once, and is the last thing the
  // attempt touches: the call's state may be destroyed inside it.
  virtual void Issue(CallState& call, const Attempt& attempt, AttemptDone done) = 0;
  // Called once per issued call with the final outcome, before its state is destroyed.
  virtual void OnFinal(CallState& call, const FinalOutcome& outcome) { (void)call; (void)outcome; }
  // Read once after the run: waits inside the workload's own resources (none by default). An attempt
  // that times out while waiting should complete with kCodeGeneratorPoolTimeout, one that waited and
  // then timed out on the wire with kCodeGeneratorPoolWaitDeadline.
  virtual GeneratorWaitStats GeneratorWaits() const { return {}; }
  // Whether the calls may be repeated (see Idempotency). Override it when the policy retries.
  virtual Idempotency CallIdempotency() const { return Idempotency::kUndeclared; }
  // When the workload last put a request on the wire, for a workload that queues attempts before
  // sending them (a connection pool, a worker queue); nullopt (the default): every attempt is sent
  // within Issue. The runner reports the later of this and its own last Issue as the last request
  // sent (RunResult::last_sent_ns), which a safety abort's stop latency is measured to. From any thread.
  virtual std::optional<Clock::time_point> LastSent() const { return std::nullopt; }

  // For a workload whose completions wait in a queue until a thread polls it (a gRPC CompletionQueue:
  // GrpcAsyncUnaryWorkload): true makes the runner poll it on its dispatcher thread, through
  // PollCompletionsUntil, before each arrival, while it waits for the next one, and while it drains.
  // One thread then both sends and completes the calls, which spares the cross-thread wake-ups that
  // cost an open-model generator most of its CPU (docs/benchmarks.md). The price: a completion is
  // seen, and its latency taken, when the dispatcher next polls, which can be up to about
  // RunnerOptions::poll_slack after it arrived. Default false: completions arrive on the workload's
  // own threads and are timed there.
  virtual bool PolledByDispatcher() const { return false; }
  // Delivers the completions that are ready (each attempt's AttemptDone, on this thread) and waits
  // for more until `until` at the latest (a time already past: only what is ready). Called only when
  // PolledByDispatcher(), from one thread per runner.
  virtual void PollCompletionsUntil(Clock::time_point until) { (void)until; }
};

// How outcomes are classified. Defaults follow the seed's measurement traps: retry UNAVAILABLE
// only (INTERNAL is how a genuine server failure surfaces; retrying it would hide it). Which of the
// retryable codes are really retried depends on the workload's Idempotency (ShouldRetry).
// kCodeNotSent (the request never left the client) is not indeterminate.
struct OutcomePolicy {
  std::function<bool(CallCode)> is_success = [](CallCode c) { return c == kCodeOk; };
  std::set<CallCode> retryable = {kCodeUnavailable};
  // Failures after which the service may still have committed the work.
  std::set<CallCode> indeterminate = {kCodeDeadlineExceeded, kCodeUnavailable, kCodeCancelled, kCodeUnknown,
                                      kCodeTransportError};
  int max_attempts = 10;
  std::chrono::milliseconds initial_backoff{20};
  std::chrono::milliseconds max_backoff{200};
};

// Whether a failed attempt with `code` may be tried again (before the deadline and max_attempts):
// retryable, and, for a non-idempotent workload, not possibly applied (not in policy.indeterminate).
bool ShouldRetry(const OutcomePolicy& policy, Idempotency idempotency, CallCode code);
// "" when the policy and the workload's idempotency fit; otherwise why not (an undeclared workload
// whose policy retries codes that may have been applied), for the runner's refusal to start.
std::string RetryDeclarationProblem(const OutcomePolicy& policy, Idempotency idempotency);

}  // namespace aftershock::load

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_WORKLOAD_H_
