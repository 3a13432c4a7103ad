// The availability gates (P1): outage, gap between successes, failure-equivalent seconds, and the
// time to recover after each fault round, each against the scenario's budget (availability.h holds
// the measurements). Registered in BuiltInGates() (gates.h).
//
//   p1-longest-gap          the outage as one duration: the longest time between consecutive
//                           successful completions (ms, including the edges of offered load)
//                           <= max_gap_seconds; the first P1 line of the report
//   p1-longest-outage       longest run of whole seconds with offered load and no success <= budget;
//                           its message names the ms duration too, so a 1.2 s stall spread over two
//                           seconds never reads as "0 s" alone
//   p1-unavailable-seconds  failure-equivalent seconds (sum of (failed + shed) / offered) <= budget
//   time-to-recover         after each fault round, ms until success is stable again <= budget, from
//                           the revert and, for a recovery inside the fault window, from the apply;
//                           "not applicable" when no fault round is measured
//
//   GateSet set;
//   set.Add(LongestOutageGate());
#ifndef AFTERSHOCK_FRAMEWORK_GATES_AVAILABILITY_GATES_H_
#define AFTERSHOCK_FRAMEWORK_GATES_AVAILABILITY_GATES_H_

#include <memory>
#include <string_view>

#include "framework/gates/gate.h"

namespace aftershock::gates {

inline constexpr std::string_view kLongestOutage = "p1-longest-outage";
inline constexpr std::string_view kLongestGap = "p1-longest-gap";
inline constexpr std::string_view kUnavailableSeconds = "p1-unavailable-seconds";
inline constexpr std::string_view kTimeToRecover = "time-to-recover";

std::unique_ptr<Gate> LongestOutageGate();
std::unique_ptr<Gate> LongestGapGate();
std::unique_ptr<Gate> UnavailableSecondsGate();
std::unique_ptr<Gate> TimeToRecoverGate();

}  // namespace aftershock::gates

#endif  // AFTERSHOCK_FRAMEWORK_GATES_AVAILABILITY_GATES_H_
