// Gates: the verdict of a scenario. Every gate is evaluated and every violation reported with its
// numbers (never just the first), so one run tells the whole story.
//
// Gates, by name:
//   traffic-served          some second had a success (a run that served nothing proves nothing)
//   ledger-not-empty        promises were acknowledged and verification checked some (when required)
//   verification-decided    undecided promises (errors + never started) / verified <= max_undecided_ratio;
//                           says "exhaustive: N of N" or "sampled: n of N" and counts undecided by code
//   p1-longest-outage       longest run of seconds with offered load and no success <= budget
//   p1-longest-gap          longest time between consecutive successful completions (ms, including
//                           the edges of offered load) <= max_gap_seconds
//   p1-unavailable-seconds  failure-equivalent seconds (sum of (failed + shed) / offered) <= budget
//   time-to-recover         after each fault round, ms until success is stable again <= budget, from
//                           the revert and, for a recovery inside the fault window, from the apply
//   p2-promise-stability    no acknowledged promise changed on re-issue (zero tolerance)
//   p3-reverse-lookup       no acknowledged promise lost or pointing at another key (zero tolerance)
//   shed-outweighs-failures shedding at the in-flight ceiling did not dominate the failures
//   generator-limited       the load generator held its schedule
//   fault-took-effect       every applied fault round confirmed its effect, and every revert the
//                           absence of residue; a fault that opted out (not confirmable) passes
//                           with its reason shown; "not applicable" when the scenario has no faults
//
//   GateInputs in{.timeline = &timeline, .health = &health, .verification = &report,
//                 .ledger_acknowledged = ledger.acknowledged(), .faults = faults, .budgets = budgets};
//   std::vector<GateResult> results = EvaluateGates(in);
//   std::cout << FormatGateReport(results);   // "PASS p1-longest-outage: 2 s from second 41 (budget 30 s)"
//   EXPECT_TRUE(AllPassed(results));
#ifndef AFTERSHOCK_FRAMEWORK_GATES_GATES_H_
#define AFTERSHOCK_FRAMEWORK_GATES_GATES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/gates/availability.h"
#include "framework/ledger/verifier.h"
#include "framework/metrics/generator_health.h"
#include "framework/metrics/load_timeline.h"

namespace aftershock::gates {

inline constexpr std::string_view kTrafficServed = "traffic-served";
inline constexpr std::string_view kLedgerNotEmpty = "ledger-not-empty";
inline constexpr std::string_view kVerificationDecided = "verification-decided";
inline constexpr std::string_view kLongestOutage = "p1-longest-outage";
inline constexpr std::string_view kLongestGap = "p1-longest-gap";
inline constexpr std::string_view kUnavailableSeconds = "p1-unavailable-seconds";
inline constexpr std::string_view kTimeToRecover = "time-to-recover";
inline constexpr std::string_view kPromiseStability = "p2-promise-stability";
inline constexpr std::string_view kReverseLookup = "p3-reverse-lookup";
inline constexpr std::string_view kShedOutweighsFailures = "shed-outweighs-failures";
inline constexpr std::string_view kGeneratorLimited = "generator-limited";
inline constexpr std::string_view kFaultTookEffect = "fault-took-effect";

// One fault's proof of what it did (chaos::ConfirmationRecord, as the gate sees it).
struct FaultEffect {
  enum class Outcome { kConfirmed, kNotConfirmed, kNotConfirmable };
  std::string fault;
  int round = 0;        // 1-based per fault name
  bool revert = false;  // false: the round's effect; true: no residue after its revert
  Outcome outcome = Outcome::kNotConfirmed;
  std::string detail;   // what was observed, or why not
  double seconds = 0;   // run seconds of the observation
};

struct GateInputs {
  const metrics::LoadTimeline* timeline = nullptr;   // null counts as an empty timeline
  const metrics::GeneratorHealth* health = nullptr;  // null fails generator-limited (not measured)
  const ledger::VerificationReport* verification = nullptr;  // null: a scenario without promises
  std::uint64_t ledger_acknowledged = 0;
  std::uint64_t ledger_pinned = 0;          // promises kept because they were near a fault
  std::uint64_t ledger_fault_overflow = 0;  // near-fault promises that did not fit (sampled runs)
  double max_undecided_ratio = 0;           // verification-decided budget, 0..1
  std::vector<FaultWindow> faults;  // in time order: round 1, 2, ... of the time-to-recover figures
  GateBudgets budgets;
  bool require_promises = true;  // false: ledger-not-empty, P2 and P3 pass as "not applicable"
  // fault-took-effect: the plan had faults (planned_faults > 0) and these are their confirmations.
  std::size_t planned_faults = 0;
  std::vector<FaultEffect> fault_effects;
};

struct GateResult {
  std::string name;
  bool passed = false;
  std::string message;
  std::vector<std::pair<std::string, double>> figures;  // snake_case name -> value, for JUnit properties
};

// One result per gate, in the order of the list above.
std::vector<GateResult> EvaluateGates(const GateInputs& inputs);
// Only the promise gates (ledger-not-empty, verification-decided, P2, P3), e.g. for re-verifying a
// ledger file after the run (aftershock-verify), where there is no timeline.
std::vector<GateResult> EvaluatePromiseGates(const GateInputs& inputs);
bool AllPassed(const std::vector<GateResult>& results);
// One line per gate: "PASS <name>: <message>" or "FAIL <name>: <message>", each ending in '\n'.
std::string FormatGateReport(const std::vector<GateResult>& results);
// One line per failed gate, "<name>: <message>" (for failures.txt); empty when all passed.
std::vector<std::string> FailureReasons(const std::vector<GateResult>& results);

// Checked before a run starts: the in-flight ceiling must hold every call of the peak rate for a
// whole deadline, or shedding fires before the service does. Returns the error (naming
// RESILIENCE_MAX_IN_FLIGHT and rate x deadline) when max_in_flight < rate x deadline.
std::optional<std::string> CheckInFlightCeiling(double peak_rate_per_second, double call_deadline_seconds,
                                                int max_in_flight);

}  // namespace aftershock::gates

#endif  // AFTERSHOCK_FRAMEWORK_GATES_GATES_H_
