// The table of scenario knobs: manifest key, environment variable, value kind and bound. One table so
// that the manifest parser, the environment check and the messages that list known names agree.
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_KNOBS_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_KNOBS_H_

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "framework/config/scenario_config.h"

namespace aftershock::config::internal {

enum class ValueKind { kNumber, kDuration, kInteger };
// For integers kPositive means >= 1; kRatio is 0..1; kBudgetRatio is 0 <= v < 1 (a budget of 1 allows
// everything, so its gate could never fail).
enum class Bound { kPositive, kNonNegative, kRatio, kBudgetRatio };

struct KnobSpec {
  std::string_view name;  // manifest key
  std::string_view env;   // environment variable
  ValueKind kind;
  Bound bound;
  // Almost every knob must be set explicitly (no hidden defaults). The few that have a built-in
  // default have one because it is the strict choice (max_undecided_ratio: 0, verification decides
  // every promise); docs/configuration.md lists them.
  bool has_default = false;
  double default_value = 0;
};

enum KnobIndex : std::size_t {
  kRatePerSecond,
  kLoadSeconds,
  kSettleSeconds,
  kCallDeadlineSeconds,
  kMaxInFlight,
  kLedgerCapacity,
  kMaxOutageSeconds,
  kMaxGapSeconds,  // optional: when set nowhere, it takes max_outage_seconds (see set_manifest.h)
  kMaxUnavailableSeconds,
  kMaxRecoverySeconds,
  kVerifyConcurrency,
  kTimeoutSeconds,
  kMaxUndecidedRatio,
  kConvergeTimeoutSeconds,
  kDispatchCoalesceSeconds,
  kMaxDispatchLagSeconds,
  kDispatchWakeSliceSeconds,
  kMaxLatencyP99Seconds,  // required unless latency_not_judged says why not (see set_manifest.h)
  kMaxRetriesPerCall,
};

inline constexpr KnobSpec kKnobs[] = {
    {"rate_per_second", "RESILIENCE_RATE_PER_SECOND", ValueKind::kNumber, Bound::kPositive, false, 0},
    {"load_seconds", "RESILIENCE_LOAD_SECONDS", ValueKind::kDuration, Bound::kPositive, false, 0},
    {"settle_seconds", "RESILIENCE_SETTLE_SECONDS", ValueKind::kDuration, Bound::kNonNegative, false, 0},
    {"call_deadline_seconds", "RESILIENCE_CALL_DEADLINE_SECONDS", ValueKind::kDuration, Bound::kPositive, false,
     0},
    {"max_in_flight", "RESILIENCE_MAX_IN_FLIGHT", ValueKind::kInteger, Bound::kPositive, false, 0},
    {"ledger_capacity", "RESILIENCE_LEDGER_CAPACITY", ValueKind::kInteger, Bound::kPositive, false, 0},
    {"max_outage_seconds", "RESILIENCE_MAX_OUTAGE_SECONDS", ValueKind::kDuration, Bound::kNonNegative, false, 0},
    {"max_gap_seconds", "RESILIENCE_MAX_GAP_SECONDS", ValueKind::kDuration, Bound::kNonNegative, false, 0},
    {"max_unavailable_seconds", "RESILIENCE_MAX_UNAVAILABLE_SECONDS", ValueKind::kDuration, Bound::kNonNegative,
     false, 0},
    {"max_recovery_seconds", "RESILIENCE_MAX_RECOVERY_SECONDS", ValueKind::kDuration, Bound::kNonNegative, false,
     0},
    {"verify_concurrency", "RESILIENCE_VERIFY_CONCURRENCY", ValueKind::kInteger, Bound::kPositive, false, 0},
    {"timeout_seconds", "RESILIENCE_TIMEOUT_SECONDS", ValueKind::kDuration, Bound::kPositive, false, 0},
    {"max_undecided_ratio", "RESILIENCE_MAX_UNDECIDED_RATIO", ValueKind::kNumber, Bound::kBudgetRatio, true, 0},
    {"converge_timeout_seconds", "RESILIENCE_CONVERGE_TIMEOUT_SECONDS", ValueKind::kDuration, Bound::kNonNegative,
     true, 30},
    {"dispatch_coalesce_seconds", "RESILIENCE_DISPATCH_COALESCE_SECONDS", ValueKind::kDuration, Bound::kNonNegative,
     true, 0},
    {"max_dispatch_lag_seconds", "RESILIENCE_MAX_DISPATCH_LAG_SECONDS", ValueKind::kDuration, Bound::kPositive, true,
     0.010},
    {"dispatch_wake_slice_seconds", "RESILIENCE_DISPATCH_WAKE_SLICE_SECONDS", ValueKind::kDuration,
     Bound::kNonNegative, true, 0},
    {"max_latency_p99_seconds", "RESILIENCE_MAX_LATENCY_P99_SECONDS", ValueKind::kDuration, Bound::kPositive, false,
     0},
    {"max_retries_per_call", "RESILIENCE_MAX_RETRIES_PER_CALL", ValueKind::kNumber, Bound::kNonNegative, true, 0.05},
};
inline constexpr std::size_t kKnobCount = std::size(kKnobs);

// The one RESILIENCE_* variable that is not a knob: which scenarios of the set run.
inline constexpr std::string_view kScenariosVariable = "RESILIENCE_SCENARIOS";

// RESILIENCE_* says what a scenario measures (knobs, selection); how the tool runs is AFTERSHOCK_*
// (docs/environment.md). These names were once validated here but read by nobody: they are refused
// with the variable that does the job, so a setting never silently does nothing.
struct MovedVariable {
  std::string_view name;
  std::string_view use_instead;
};
inline constexpr MovedVariable kMovedVariables[] = {
    {"RESILIENCE_ARTIFACTS_DIR", "AFTERSHOCK_ARTIFACTS_DIR (or --aftershock_artifacts_dir)"},
    {"RESILIENCE_PROGRESS_SECONDS", "AFTERSHOCK_PROGRESS_SECONDS (or --aftershock_progress_seconds)"},
};

// nullptr when `name` is not a knob.
const KnobSpec* FindKnob(std::string_view name);

// The value of `text` read as `spec` says, or a problem phrased to follow the value:
// "is not a duration (expected ...)", "is not an integer", "must be > 0", ...
struct ParsedKnob {
  std::optional<double> value;
  std::string problem;  // set when !value
};
ParsedKnob ParseKnob(const KnobSpec& spec, std::string_view text);
// Same check for a number read elsewhere (profile stages): kind of the text, then the bound.
ParsedKnob ParseValue(ValueKind kind, Bound bound, std::string_view text);

// Stores `value` (already checked) into the field of `config` that knob `index` names.
void SetKnob(ScenarioConfig& config, std::size_t index, double value);

}  // namespace aftershock::config::internal

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_KNOBS_H_
