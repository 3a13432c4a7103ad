// ScenarioConfig: everything one scenario runs with, fully resolved (defaults < scenario override <
// RESILIENCE_* environment) and validated. Produced by LoadSetManifest (set_manifest.h); a scenario
// test reads it and never parses anything itself.
//
//   const ScenarioConfig& c = *manifest.FindByTest("ExampleSuite.DISABLED_StallBurst");
//   runner.Run(c.profile, c.call_deadline_seconds, c.max_in_flight);
//   double stall_at = c.params.GetDuration("stall_at_seconds");
//
// `profile` is never empty: without a `profile:` entry it is one constant stage "load" of
// rate_per_second for load_seconds. With an explicit profile, load_seconds is the sum of its stage
// durations, and rate_per_second is the configured knob (or, when no knob is given anywhere, the
// profile's peak rate); environment scaling of profiles is described in set_manifest.h.
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_SCENARIO_CONFIG_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_SCENARIO_CONFIG_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "framework/config/scenario_params.h"
#include "framework/config/slo_spec.h"
#include "framework/load/stage_spec.h"

namespace aftershock::config {

// One stop condition of a scenario's safety watch (docs/safety.md, framework/safety): a PromQL
// expression or a generator signal, compared with a threshold, breached when the comparison holds
// for for_seconds on end. Validated for form by the manifest loader; which signals exist and whether
// a Prometheus is there is checked by the fixture before the run.
struct StopConditionSpec {
  std::string name;             // [a-z0-9-]+, unique within the scenario
  std::string promql;           // exactly one of promql and signal is set
  std::string signal;           // a generator signal's name, e.g. "transport_error_ratio"
  double window_seconds = 0;    // signals: the window of the load the signal looks back over (> 0)
  std::string comparator;       // ">", ">=", "<" or "<="
  double threshold = 0;
  double for_seconds = 0;       // >= 0: how long the comparison must hold on end
  // A reading that fails (a query error, no series) for longer than for_seconds breaches the
  // condition ("cannot see ..."); false: it is only reported.
  bool breach_on_failure = true;
  std::string source;           // "file:line" of the condition
};

struct ScenarioConfig {
  std::string set;          // the set manifest's name, e.g. "pr"
  std::string name;         // [a-z0-9-]+, unique within the set
  std::string test;         // gtest full name "Suite.Name"
  std::string description;  // may be empty

  double rate_per_second = 0;        // > 0, arrivals per second
  double load_seconds = 0;           // > 0
  double settle_seconds = 0;         // >= 0, quiet period before verification
  double call_deadline_seconds = 0;  // > 0
  int max_in_flight = 0;             // >= 1
  std::size_t ledger_capacity = 0;   // >= 1
  double max_outage_seconds = 0;       // >= 0, gate: longest run without success
  // >= 0, gate: longest gap between successes. A loaded manifest always sets it (to max_outage_seconds
  // when configured nowhere); unset in a hand-built config, the gates use max_outage_seconds.
  std::optional<double> max_gap_seconds{};
  double max_unavailable_seconds = 0;  // >= 0, gate: failure-equivalent seconds
  double max_recovery_seconds = 0;     // >= 0, gate: time to recover after a fault
  int verify_concurrency = 0;          // >= 1
  double timeout_seconds = 0;          // > 0, the ctest timeout of this scenario
  double max_undecided_ratio = 0;      // 0..1, gate verification-decided (built-in default 0)
  // >= 0, how long the settle phase waits for the target to say it has converged
  // (ScenarioTarget::CheckConverged, gate target-converged); built-in default 30 s.
  double converge_timeout_seconds = 30;
  // >= 0, the runner's dispatch_coalesce (RunnerOptions): how much later than due an arrival may be
  // sent so that one wake-up of the dispatcher serves several; built-in default 0 (every arrival
  // on its own wake-up). docs/configuration.md gives the trade (CPU against up to this much lag).
  double dispatch_coalesce_seconds = 0;
  // >= 0, the runner's wake_slice (RunnerOptions): the dispatcher waits for the next arrival in
  // steps of at most this long, so that on a virtual machine its CPU does not idle long enough to
  // be handed back to the host; built-in default 0 (one sleep per wait). docs/configuration.md.
  double dispatch_wake_slice_seconds = 0;
  // > 0, gate generator-limited: the dispatch lag p99 (how late the runner sent its arrivals) above
  // which the run's figures describe the generator rather than the service (RunnerOptions::
  // max_lag_p99_ms); built-in default 10 ms.
  double max_dispatch_lag_seconds = 0.010;
  // > 0, gate latency-p99: the 99th percentile of the successful calls' latency (from the intended
  // send) must stay within it. A loaded manifest always sets it unless latency_not_judged says why
  // not; unset in a hand-built config without a reason, the gate reads "not applicable" and says so.
  std::optional<double> max_latency_p99_seconds{};
  // Non-empty: the scenario does not judge latency (`latency_not_judged: <reason>`, e.g. a failover's
  // successes after retries take up to the deadline by design); the latency-p99 gate reads N/A with it.
  std::string latency_not_judged;
  // `faults_required: true`: the scenario exists to inject faults, so a fault plan that comes out
  // empty (e.g. computed from knobs that leave no room for a burst) fails it before the load
  // (scenario::ScenarioPlan::faults_required), whatever the suite asks.
  bool faults_required = false;
  // >= 0, gate retry-amplification: the retry policy's extra attempts per offered call; built-in
  // default 0.05. Retries hide first-attempt failures from the final outcome; this budget bounds them.
  double max_retries_per_call = 0.05;

  std::vector<aftershock::load::StageSpec> profile;  // never empty
  ScenarioParams params;
  // The manifest's `env:` for the system under test (the set's, with this scenario's overrides):
  // what a fixture hook passes to the processes it brings up. aftershock itself reads none of it.
  std::map<std::string, std::string> env;
  // The safety watch (the set's `stop_conditions:`, with this scenario's added or replacing by name);
  // empty: no stop condition.
  std::vector<StopConditionSpec> stop_conditions;
  // The scenario's own service-level objectives (the set's `slo:`, with this scenario's keys
  // replacing), judged by the SLO gates; empty: the scenario declares none and has no SLO gates.
  std::optional<SloSpec> slo;
  // Non-empty: the scenario does not judge availability (an overload by design), and this is why
  // (`availability_not_judged: <reason>`). The P1 gates then read "not applicable" with the reason
  // instead of judging a budget as long as the run; without it such a budget is a manifest error.
  std::string availability_not_judged;
  std::string source;  // "file:line" of the scenario entry

  // The highest rate any stage reaches (arrivals per second).
  double PeakRate() const;
  // The sum of the stage durations.
  double ProfileSeconds() const;
};

}  // namespace aftershock::config

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_SCENARIO_CONFIG_H_
