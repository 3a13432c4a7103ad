// FaultMiddleware: the piece a user links into their own service so a resilience test can inject
// upstream faults into ITS OWN requests (seed 002): the driver sends a fault spec in the
// X-Chaos-Spec header (fault_spec.h), the service asks the middleware what fires for that request
// and applies it where the fault lives (the upstream call site, the database access, the cache).
//
// Safe by construction for production builds:
//  - it is off unless AFTERSHOCK_CHAOS_ENABLED=1 is in the service's environment when it starts
//    (read once, by FromEnvironment; any value other than unset, "0" or "1" is an error, so a typo
//    does not silently leave it off or on);
//  - off, Decide returns "nothing fires" for every request, whatever header it carries;
//  - only requests carrying the header are touched, so other traffic is never faulted.
// Each fault of a header fires independently at its rate, drawn from an injectable RNG (seedable
// for deterministic runs). Thread-safe: Decide may be called from any number of server threads.
//
//   // at start-up
//   static const auto chaos = upstream_faults::FaultMiddleware::FromEnvironment(
//       upstream_faults::FaultMiddleware::SeededRng(42));
//   // per request (fault_middleware_beast.h reads the header from a Beast request)
//   const auto decision = chaos.Decide(header_value);
//   if (decision.error) return BadRequest(*decision.error);
//   try {
//     meta = chaos.ApplyUpstream(decision, [&] { return metadata_client.Fetch(ids); });
//   } catch (const upstream_faults::UpstreamFaultError& e) { /* e.code: as if the upstream said so */ }
//   if (const auto* partial = decision.Find(FaultKind::kUpstreamPartial)) meta.Truncate(partial->keep);
#ifndef AFTERSHOCK_FRAMEWORK_UPSTREAM_FAULTS_FAULT_MIDDLEWARE_H_
#define AFTERSHOCK_FRAMEWORK_UPSTREAM_FAULTS_FAULT_MIDDLEWARE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "framework/upstream_faults/fault_spec.h"

namespace aftershock::upstream_faults {

// The variable that switches the middleware on ("1") at the service's start-up.
inline constexpr const char* kChaosEnableVariable = "AFTERSHOCK_CHAOS_ENABLED";

// What fires for one request.
struct FaultDecision {
  std::vector<FaultSpec> fired;        // the faults drawn to fire, in the header's order
  std::optional<std::string> error;    // the header was present but malformed (answer 400 with it)
  std::chrono::milliseconds upstream_delay{0};  // upstream_latency's delay with its jitter drawn

  // The fired fault of that kind (the first, if the header named it twice); nullptr when none fired.
  const FaultSpec* Find(FaultKind kind) const;
  bool empty() const { return fired.empty() && !error; }
};

// Thrown by ApplyUpstream for a fired upstream_error instead of calling the upstream: the service
// handles it exactly as the upstream answering `code`.
class UpstreamFaultError : public std::runtime_error {
 public:
  explicit UpstreamFaultError(int code);
  int code() const { return code_; }

 private:
  int code_;
};

class FaultMiddleware {
 public:
  // Uniform in [0,1). Called under the middleware's lock, so it needs no locking of its own.
  using Rng = std::function<double()>;
  // A deterministic RNG (std::mt19937_64 seeded with `seed`).
  static Rng SeededRng(std::uint64_t seed);
  // An RNG seeded from std::random_device.
  static Rng RandomRng();

  // Reads kChaosEnableVariable once: unset or "0" -> off, "1" -> on; anything else throws
  // std::invalid_argument naming the variable and the value.
  static FaultMiddleware FromEnvironment(Rng rng);
  // Throws std::invalid_argument for an empty rng.
  FaultMiddleware(bool enabled, Rng rng);
  FaultMiddleware(FaultMiddleware&&) noexcept;
  FaultMiddleware& operator=(FaultMiddleware&&) noexcept;
  ~FaultMiddleware();

  bool enabled() const { return enabled_; }

  // The faults that fire for a request whose header value is `header_value` (empty: no header).
  // Off: always empty, even for a malformed header.
  FaultDecision Decide(std::string_view header_value) const;

  // Runs the upstream call `call` with the decision's upstream-site faults around it:
  // upstream_latency waits upstream_delay first (blocking this thread: an asynchronous service
  // waits decision.upstream_delay on its own timer and then calls ApplyUpstream with the latency
  // left out, see WithoutLatency); upstream_error throws UpstreamFaultError without calling;
  // otherwise it calls. The other faults are the service's to apply where they live.
  template <class Call>
  auto ApplyUpstream(const FaultDecision& decision, Call&& call) const -> decltype(call()) {
    if (decision.upstream_delay.count() > 0) std::this_thread::sleep_for(decision.upstream_delay);
    if (const auto* error = decision.Find(FaultKind::kUpstreamError)) throw UpstreamFaultError(error->code);
    return call();
  }

  // The decision with upstream_latency removed (for a service that waited on its own timer).
  static FaultDecision WithoutLatency(FaultDecision decision);

 private:
  struct State;
  bool enabled_;
  std::unique_ptr<State> state_;
};

}  // namespace aftershock::upstream_faults

#endif  // AFTERSHOCK_FRAMEWORK_UPSTREAM_FAULTS_FAULT_MIDDLEWARE_H_
