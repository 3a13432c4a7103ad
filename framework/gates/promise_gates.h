// The promise gates: was the ledger verified, did verification decide, and did the promises hold
// (P2 re-issue stability, P3 reverse lookup / read-back). Registered in BuiltInGates() (gates.h).
//
//   ledger-not-empty      promises were acknowledged and verification checked some
//   verification-decided  undecided / verified <= max_undecided_ratio
//   p2-promise-stability  no acknowledged promise changed on re-issue (zero tolerance)
//   p3-reverse-lookup     no acknowledged promise lost or pointing at another key (zero tolerance)
//
// Not applicable (N/A, never PASS): all four when the target makes no promises (require_promises
// false, no verification report); P2 (P3) when verification ran and decided that property for no
// promise (p2_decided == 0, no violation) while it did decide others or had nothing to decide: the
// verifier does not check that property. When nothing at all was decided the gate is red.
//
//   GateSet set;
//   set.Add(PromiseStabilityGate());
#ifndef AFTERSHOCK_FRAMEWORK_GATES_PROMISE_GATES_H_
#define AFTERSHOCK_FRAMEWORK_GATES_PROMISE_GATES_H_

#include <memory>
#include <string_view>

#include "framework/gates/gate.h"

namespace aftershock::gates {

inline constexpr std::string_view kLedgerNotEmpty = "ledger-not-empty";
inline constexpr std::string_view kVerificationDecided = "verification-decided";
inline constexpr std::string_view kPromiseStability = "p2-promise-stability";
inline constexpr std::string_view kReverseLookup = "p3-reverse-lookup";

std::unique_ptr<Gate> LedgerNotEmptyGate();
std::unique_ptr<Gate> VerificationDecidedGate();
std::unique_ptr<Gate> PromiseStabilityGate();
std::unique_ptr<Gate> ReverseLookupGate();

}  // namespace aftershock::gates

#endif  // AFTERSHOCK_FRAMEWORK_GATES_PROMISE_GATES_H_
