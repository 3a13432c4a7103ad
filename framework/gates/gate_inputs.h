// GateInputs: everything the built-in gates judge a run on (timeline, generator health,
// verification, faults, budgets). A gate reads what it needs and ignores the rest; a suite's own
// gate may capture more (see gate.h).
//
//   GateInputs in{.timeline = &timeline, .health = &health, .verification = &report,
//                 .ledger_acknowledged = ledger.acknowledged(), .faults = faults, .budgets = budgets};
#ifndef AFTERSHOCK_FRAMEWORK_GATES_GATE_INPUTS_H_
#define AFTERSHOCK_FRAMEWORK_GATES_GATE_INPUTS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/gates/availability.h"
#include "framework/ledger/verifier.h"
#include "framework/metrics/generator_health.h"
#include "framework/metrics/load_timeline.h"

namespace aftershock::gates {

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

// A planned fault round that never happened (chaos::SkippedRound, as the gate sees it).
struct SkippedFaultRound {
  std::string fault{};
  int round = 0;      // 1-based per fault name
  std::string why{};  // "its repeat window is empty (...)", "the scheduler stopped before it (...)"
};

// One fault lease a scenario's faults depended on (the cluster supervisor's, the request proxy's rule
// leases), read before the load and after the chaos plan ended. A lease that expired in between had its
// faults reverted by its owner mid-run: the run did not test what it planned (fault-lease-held).
struct FaultLeaseAccount {
  std::string lease{};                  // "cluster supervisor", "request proxy"
  std::uint64_t expiries_before = 0;    // the owner's expiry count before the load
  std::uint64_t expiries_after = 0;     // and after the plan
  std::string read_error{};             // non-empty: a reading failed (then the counts mean nothing)
  double last_expiry_seconds = -1;      // run seconds of the last expiry, -1 unknown
  std::string last_expiry{};            // the owner's words: why it expired and what it reverted
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
  // Non-empty: the scenario does not judge availability (ScenarioConfig::availability_not_judged);
  // the P1 gates read "not applicable" with this reason.
  std::string availability_not_judged;
  // Non-empty: the scenario does not judge latency (ScenarioConfig::latency_not_judged); latency-p99
  // reads "not applicable" with this reason.
  std::string latency_not_judged;
  // false: the target makes no promises; without a verification report the promise gates are
  // "not applicable" (with one, they judge it).
  bool require_promises = true;
  // fault-took-effect: the plan had faults (planned_faults > 0) and these are their confirmations.
  std::size_t planned_faults = 0;
  std::vector<FaultEffect> fault_effects;
  std::vector<SkippedFaultRound> skipped_fault_rounds;  // planned rounds that did not happen: red
  // fault-lease-held: every lease the faults held (empty: not applicable, no fault held one).
  std::vector<FaultLeaseAccount> fault_leases;
};

}  // namespace aftershock::gates

#endif  // AFTERSHOCK_FRAMEWORK_GATES_GATE_INPUTS_H_
