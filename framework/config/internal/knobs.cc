#include "framework/config/internal/knobs.h"

#include <climits>

#include "framework/config/scalar_text.h"

namespace aftershock::config::internal {

const KnobSpec* FindKnob(std::string_view name) {
  for (const KnobSpec& spec : kKnobs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

ParsedKnob ParseValue(ValueKind kind, Bound bound, std::string_view text) {
  std::optional<double> value;
  switch (kind) {
    case ValueKind::kNumber:
      value = ParseNumber(text);
      if (!value) return {std::nullopt, "is not a number"};
      break;
    case ValueKind::kDuration:
      value = ParseDuration(text);
      if (!value) return {std::nullopt, "is not a duration (" + std::string(kDurationExpectation) + ")"};
      break;
    case ValueKind::kInteger: {
      std::optional<long long> integer = ParseInteger(text);
      if (!integer) return {std::nullopt, "is not an integer"};
      if (*integer > INT_MAX) return {std::nullopt, "must be at most " + std::to_string(INT_MAX)};
      value = static_cast<double>(*integer);
      if (bound == Bound::kPositive && *value < 1) return {std::nullopt, "must be >= 1"};
      break;
    }
  }
  if (bound == Bound::kPositive && *value <= 0) return {std::nullopt, "must be > 0"};
  if (bound == Bound::kNonNegative && *value < 0) return {std::nullopt, "must be >= 0"};
  if (bound == Bound::kRatio && !(*value >= 0 && *value <= 1)) return {std::nullopt, "must be between 0 and 1"};
  if (bound == Bound::kBudgetRatio && !(*value >= 0 && *value < 1)) {
    return {std::nullopt, "must be at least 0 and below 1 (1 allows everything: a gate that cannot fail)"};
  }
  return {value, ""};
}

ParsedKnob ParseKnob(const KnobSpec& spec, std::string_view text) {
  return ParseValue(spec.kind, spec.bound, text);
}

void SetKnob(ScenarioConfig& config, std::size_t index, double value) {
  switch (static_cast<KnobIndex>(index)) {
    case kRatePerSecond: config.rate_per_second = value; return;
    case kLoadSeconds: config.load_seconds = value; return;
    case kSettleSeconds: config.settle_seconds = value; return;
    case kCallDeadlineSeconds: config.call_deadline_seconds = value; return;
    case kMaxInFlight: config.max_in_flight = static_cast<int>(value); return;
    case kLedgerCapacity: config.ledger_capacity = static_cast<std::size_t>(value); return;
    case kMaxOutageSeconds: config.max_outage_seconds = value; return;
    case kMaxUnavailableSeconds: config.max_unavailable_seconds = value; return;
    case kMaxRecoverySeconds: config.max_recovery_seconds = value; return;
    case kVerifyConcurrency: config.verify_concurrency = static_cast<int>(value); return;
    case kTimeoutSeconds: config.timeout_seconds = value; return;
    case kMaxGapSeconds: config.max_gap_seconds = value; return;
    case kMaxUndecidedRatio: config.max_undecided_ratio = value; return;
    case kConvergeTimeoutSeconds: config.converge_timeout_seconds = value; return;
    case kDispatchCoalesceSeconds: config.dispatch_coalesce_seconds = value; return;
    case kMaxDispatchLagSeconds: config.max_dispatch_lag_seconds = value; return;
    case kDispatchWakeSliceSeconds: config.dispatch_wake_slice_seconds = value; return;
    case kMaxLatencyP99Seconds: config.max_latency_p99_seconds = value; return;
    case kMaxRetriesPerCall: config.max_retries_per_call = value; return;
  }
}

}  // namespace aftershock::config::internal
