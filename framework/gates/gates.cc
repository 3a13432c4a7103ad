#include "framework/gates/gates.h"

#include <cmath>

#include "framework/gates/internal/format_number.h"

namespace aftershock::gates {

using internal::FormatNumber;

GateSet BuiltInGates() {
  GateSet set;
  set.Add(TrafficServedGate())
      .Add(LedgerNotEmptyGate())
      .Add(VerificationDecidedGate())
      .Add(LongestGapGate())
      .Add(LongestOutageGate())
      .Add(UnavailableSecondsGate())
      .Add(TimeToRecoverGate())
      .Add(LatencyP99Gate())
      .Add(RetryAmplificationGate())
      .Add(PromiseStabilityGate())
      .Add(ReverseLookupGate())
      .Add(ShedOutweighsFailuresGate())
      .Add(GeneratorLimitedGate())
      .Add(FaultTookEffectGate())
      .Add(FaultLeaseHeldGate());
  return set;
}

GateSet PromiseGates() {
  GateSet set;
  set.Add(LedgerNotEmptyGate()).Add(VerificationDecidedGate()).Add(PromiseStabilityGate()).Add(ReverseLookupGate());
  return set;
}

std::vector<GateResult> EvaluateGates(const GateInputs& inputs) {
  static const GateSet kBuiltIn = BuiltInGates();
  return kBuiltIn.Evaluate(inputs);
}

std::vector<GateResult> EvaluatePromiseGates(const GateInputs& inputs) {
  static const GateSet kPromise = PromiseGates();
  return kPromise.Evaluate(inputs);
}

std::optional<std::string> CheckInFlightCeiling(double peak_rate_per_second, double call_deadline_seconds,
                                                int max_in_flight) {
  const double needed = peak_rate_per_second * call_deadline_seconds;
  if (!(static_cast<double>(max_in_flight) < needed)) return std::nullopt;
  return "RESILIENCE_MAX_IN_FLIGHT=" + std::to_string(max_in_flight) + " is below peak rate x call deadline = " +
         FormatNumber(peak_rate_per_second) + "/s x " + FormatNumber(call_deadline_seconds) +
         " s = " + FormatNumber(needed) +
         ": the in-flight ceiling would fire before the service does and its shedding would be counted as the "
         "service's failure; raise RESILIENCE_MAX_IN_FLIGHT to at least " +
         FormatNumber(std::ceil(needed)) + " or lower the rate";
}

}  // namespace aftershock::gates
