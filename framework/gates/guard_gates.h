// The guard gates: a run whose result cannot be trusted is red, whatever the budgets say.
// Registered in BuiltInGates() (gates.h).
//
//   traffic-served          some second had a success (a run that served nothing proves nothing)
//   shed-outweighs-failures shedding at the in-flight ceiling did not dominate the failures
//   generator-limited       the load generator held its schedule
//   fault-took-effect       every applied fault round confirmed its effect, and every revert the
//                           absence of residue; a fault that opted out (not confirmable) passes
//                           with its reason shown; "not applicable" when the scenario has no faults
//   fault-lease-held        no fault lease expired during the run (an expired lease's owner
//                           reverted the faults mid-run: a 20 s partition cut to 5 s); "not
//                           applicable" when no fault held a lease
//
//   GateSet set;
//   set.Add(TrafficServedGate());
#ifndef AFTERSHOCK_FRAMEWORK_GATES_GUARD_GATES_H_
#define AFTERSHOCK_FRAMEWORK_GATES_GUARD_GATES_H_

#include <memory>
#include <string_view>

#include "framework/gates/gate.h"

namespace aftershock::gates {

inline constexpr std::string_view kTrafficServed = "traffic-served";
inline constexpr std::string_view kShedOutweighsFailures = "shed-outweighs-failures";
inline constexpr std::string_view kGeneratorLimited = "generator-limited";
inline constexpr std::string_view kFaultTookEffect = "fault-took-effect";
inline constexpr std::string_view kFaultLeaseHeld = "fault-lease-held";

std::unique_ptr<Gate> TrafficServedGate();
std::unique_ptr<Gate> ShedOutweighsFailuresGate();
std::unique_ptr<Gate> GeneratorLimitedGate();
std::unique_ptr<Gate> FaultTookEffectGate();
std::unique_ptr<Gate> FaultLeaseHeldGate();

}  // namespace aftershock::gates

#endif  // AFTERSHOCK_FRAMEWORK_GATES_GUARD_GATES_H_
