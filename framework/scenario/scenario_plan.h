// ScenarioPlan: everything one run of a scenario is given before it starts (its resolved knobs, the
// faults on their schedule, where the ledger streams, how it is stopped early: SIGINT, or the safety
// watch of abort_monitor.h).
//
//   ScenarioPlan plan{.config = config, .faults = {{.at = 4s, .duration = 2s, .fault = stall}}};
//   plan.ledger_path = artifacts / "ledger.tsv";
//   ScenarioOutcome outcome = RunScenario(plan, target);   // scenario_run.h
#ifndef AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_PLAN_H_
#define AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_PLAN_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/chaos/chaos_scheduler.h"
#include "framework/config/scenario_config.h"
#include "framework/load/open_model_runner.h"
#include "framework/scenario/abort_monitor.h"

namespace aftershock::scenario {

// One reading of a fault lease's owner (the cluster supervisor, the request proxy): how many times a
// lease ran out so far, and the last time it did.
struct FaultLeaseReading {
  std::uint64_t expiries = 0;
  std::int64_t last_expiry_unix_ms = 0;  // 0: none yet
  std::string last_expiry{};             // the owner's words: why, and what it reverted
};

// A lease the run's faults hold while they are in force. RunScenario reads it before the load and
// after the chaos plan has ended; an expiry in between turns fault-lease-held red.
struct FaultLeaseWatch {
  std::string lease{};                        // "cluster supervisor"
  std::function<FaultLeaseReading()> read{};  // throws (std::exception) when it cannot read
};

struct ScenarioPlan {
  config::ScenarioConfig config;
  std::vector<chaos::TimedFault> faults;
  // True for a scenario that exists to inject faults: an empty `faults` is then a ScenarioSetupError
  // before the load (a plan computed from knobs that fits nothing, e.g. no burst within load_seconds),
  // never a run judged as if it were a baseline.
  bool faults_required = false;
  // The leases the faults hold (fault-lease-held; empty: the gate is not applicable).
  std::vector<FaultLeaseWatch> fault_leases;
  std::function<bool()> stop_requested;               // e.g. the SIGINT flag
  int progress_seconds = 5;                           // 0: no progress line (lines go to stderr)
  std::uint64_t seed = 1;
  // Where the ledger streams while the run goes (every promise, flushed at least every second);
  // empty: no ledger file.
  std::string ledger_path;
  // Promises acknowledged this close to a fault's actual window are pinned when the ledger samples.
  std::int64_t fault_window_ms = 5000;
  // Optional: the safety watch of the run (abort_monitor.h), made once the runner exists (so its
  // signals can read the live load) and dropped when the load ends. Its breach stops the load,
  // aborts the chaos plan and turns run-not-aborted red; with it set, the gates run-not-aborted and
  // abort-stop-latency are judged.
  std::function<std::unique_ptr<AbortMonitor>(const load::OpenModelRunner&)> abort_monitor;
  // The abort contract (docs/safety.md): from the breach to the last request sent, at most this.
  double max_stop_latency_seconds = 5;
};

// The run could not start (e.g. the in-flight ceiling is below rate x deadline, or the target returned
// no verifier without declaring that it makes no promises).
class ScenarioSetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace aftershock::scenario

#endif  // AFTERSHOCK_FRAMEWORK_SCENARIO_SCENARIO_PLAN_H_
