// Gates: the verdict of a scenario. Every gate is evaluated and every violation reported with its
// numbers (never just the first), so one run tells the whole story.
//
// The gates are an open set (gate.h): BuiltInGates() is a GateSet of the fifteen below, added in
// report order like any other gate; a suite adds its own (a GateSet entry, or results appended
// through JudgeOptions::suite_gates, e.g. the alert chain). A gate with nothing to check says
// "N/A" (not applicable), never PASS (gate_result.h).
//
// Built-in gates, in report order (what each checks: availability_gates.h, latency_retry_gates.h,
// promise_gates.h, guard_gates.h):
//   traffic-served, ledger-not-empty, verification-decided, p1-longest-gap, p1-longest-outage,
//   p1-unavailable-seconds, time-to-recover, latency-p99, retry-amplification, p2-promise-stability,
//   p3-reverse-lookup, shed-outweighs-failures, generator-limited, fault-took-effect, fault-lease-held
//
//   GateInputs in{.timeline = &timeline, .health = &health, .verification = &report,
//                 .ledger_acknowledged = ledger.acknowledged(), .faults = faults, .budgets = budgets};
//   std::vector<GateResult> results = EvaluateGates(in);   // == BuiltInGates().Evaluate(in)
//   std::cout << FormatGateReport(results);   // "PASS p1-longest-gap: 2.4 s without a success from 41.3 s (budget 30 s)"
//   EXPECT_TRUE(AllPassed(results));
#ifndef AFTERSHOCK_FRAMEWORK_GATES_GATES_H_
#define AFTERSHOCK_FRAMEWORK_GATES_GATES_H_

#include <optional>
#include <string>
#include <vector>

#include "framework/gates/availability_gates.h"
#include "framework/gates/gate.h"
#include "framework/gates/gate_inputs.h"
#include "framework/gates/gate_result.h"
#include "framework/gates/guard_gates.h"
#include "framework/gates/latency_retry_gates.h"
#include "framework/gates/promise_gates.h"

namespace aftershock::gates {

// The fifteen built-in gates in report order; a suite may Add() its own after them.
GateSet BuiltInGates();
// Only the promise gates (ledger-not-empty, verification-decided, P2, P3), e.g. for re-verifying a
// ledger file after the run (aftershock-verify), where there is no timeline.
GateSet PromiseGates();

// One result per built-in gate, in report order.
std::vector<GateResult> EvaluateGates(const GateInputs& inputs);
std::vector<GateResult> EvaluatePromiseGates(const GateInputs& inputs);

// Checked before a run starts: the in-flight ceiling must hold every call of the peak rate for a
// whole deadline, or shedding fires before the service does. Returns the error (naming
// RESILIENCE_MAX_IN_FLIGHT and rate x deadline) when max_in_flight < rate x deadline.
std::optional<std::string> CheckInFlightCeiling(double peak_rate_per_second, double call_deadline_seconds,
                                                int max_in_flight);

}  // namespace aftershock::gates

#endif  // AFTERSHOCK_FRAMEWORK_GATES_GATES_H_
