// SloSpec: a scenario's own service-level objectives, as its manifest declares them (`slo:`), for
// the per-scenario SLO gates (framework/gates/slo_gates.h). Seed 002: "Notice the SLOs differ per
// scenario": under a slow upstream a p99 of 800 ms is fine, under a dead one 500 ms is the budget
// (the breaker must fail fast), and the success ratio stays at 99 % in both.
//
//   slo:                     # in the set (every scenario's default) or a scenario (overrides per key)
//     success_ratio: 0.99    # of the completed calls in the judged stages: successes / (ok + failed)
//     latency:               # percentile -> bound, of every completed call from its intended send
//       p99: 800ms
//       p50: 120ms
//     stages: [steady]       # optional: judge only these profile stages (e.g. leave a warm-up out)
//
// What counts as a success is the target's: a 2xx whose body keeps the contract (an empty result
// list is kCodeContractViolation, docs/call-codes.md), never the status alone.
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_SLO_SPEC_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_SLO_SPEC_H_

#include <optional>
#include <string>
#include <vector>

namespace aftershock::config {

struct LatencyObjective {
  std::string label;      // as written: "p99", "p99.9", "p50"
  double percentile = 0;  // 0 < percentile <= 100
  double max_seconds = 0; // > 0: the percentile's bound
  friend bool operator==(const LatencyObjective&, const LatencyObjective&) = default;
};

struct SloSpec {
  std::optional<double> success_ratio;    // 0..1
  std::vector<LatencyObjective> latency;  // in ascending percentile order
  std::vector<std::string> stages;        // empty: every stage
  std::string source;                     // "file:line" of the (last) `slo:` that set it
  bool empty() const { return !success_ratio && latency.empty(); }
  friend bool operator==(const SloSpec&, const SloSpec&) = default;
};

}  // namespace aftershock::config

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_SLO_SPEC_H_
