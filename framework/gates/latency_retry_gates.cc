#include "framework/gates/latency_retry_gates.h"

#include <cstdint>
#include <string>

#include "framework/gates/internal/format_number.h"
#include "framework/gates/internal/totals.h"
#include "framework/metrics/latency_histogram.h"

namespace aftershock::gates {
namespace {

using internal::D;
using internal::FormatNumber;
using internal::Percent;

GateResult LatencyP99(const GateInputs& in) {
  const std::string name(kLatencyP99);
  if (!in.latency_not_judged.empty()) return NotApplicable(name, "latency not judged: " + in.latency_not_judged);
  if (!in.budgets.max_latency_p99_seconds) {
    return NotApplicable(name, "no latency budget was given (max_latency_p99_seconds); a set manifest requires "
                               "one, or latency_not_judged with a reason");
  }
  const double budget_ms = *in.budgets.max_latency_p99_seconds * 1000;
  metrics::LatencyHistogram ok_latency;
  if (in.timeline != nullptr) {
    for (const metrics::SecondBucket& b : in.timeline->seconds()) ok_latency.Merge(b.ok_latency);
  }
  GateResult r{name, false, "", {{"max_latency_p99_ms", budget_ms}, {"ok_calls", D(ok_latency.Count())}}};
  r.Declare(FigureDirection::kNeither, {"max_latency_p99_ms", "ok_calls"})
      .Declare(FigureDirection::kLowerIsBetter, {"ok_latency_p99_ms", "ok_latency_max_ms"});
  if (ok_latency.empty()) {
    r.message = "nothing was measured: no call succeeded (budget p99 " + FormatNumber(budget_ms) + " ms)";
    return r;
  }
  const double p99_ms = static_cast<double>(ok_latency.ValueAtPercentile(99)) / 1e6;
  const double max_ms = static_cast<double>(ok_latency.Max()) / 1e6;
  r.figures.push_back({"ok_latency_p99_ms", p99_ms});
  r.figures.push_back({"ok_latency_max_ms", max_ms});
  r.passed = p99_ms <= budget_ms;
  r.message = "p99 " + FormatNumber(p99_ms) + " ms" + (r.passed ? " <= " : " > ") + FormatNumber(budget_ms) +
              " ms budget over " + std::to_string(ok_latency.Count()) + " successful calls (max " +
              FormatNumber(max_ms) + " ms)";
  if (!r.passed) r.message += ": the service answered, but slower than its budget";
  return r;
}

GateResult RetryAmplification(const GateInputs& in) {
  std::uint64_t offered = 0, shed = 0, retries = 0, first_failed = 0;
  if (in.timeline != nullptr) {
    for (const metrics::SecondBucket& b : in.timeline->seconds()) {
      offered += b.offered;
      shed += b.shed;
      retries += b.retries;
      first_failed += b.first_attempt_failed;
    }
  }
  const double budget = in.budgets.max_retries_per_call;
  GateResult r{std::string(kRetryAmplification), false, "",
               {{"max_retries_per_call", budget}, {"retries", D(retries)}, {"first_attempt_failed", D(first_failed)}}};
  r.Declare(FigureDirection::kNeither, {"max_retries_per_call"})
      .Declare(FigureDirection::kLowerIsBetter,
               {"retries", "first_attempt_failed", "retries_per_call", "first_attempt_failure_ratio"});
  if (offered == 0) {
    return NotApplicable(r.name, "nothing was offered", r.figures);
  }
  const double per_call = D(retries) / D(offered);
  const std::uint64_t issued = offered - shed;
  const double first_ratio = issued == 0 ? 0 : D(first_failed) / D(issued);
  r.figures.push_back({"retries_per_call", per_call});
  r.figures.push_back({"first_attempt_failure_ratio", first_ratio});
  r.passed = per_call <= budget;
  r.message = FormatNumber(per_call) + " retries per offered call" + (r.passed ? " <= " : " > ") +
              FormatNumber(budget) + " budget (" + std::to_string(retries) + " retries for " + std::to_string(offered) +
              " offered); first attempts failed for " + Percent(first_ratio) + " of " + std::to_string(issued) +
              " issued calls";
  if (!r.passed) {
    r.message += ": the retry policy hid first-attempt failures that the final outcome does not show";
  }
  return r;
}

}  // namespace

std::unique_ptr<Gate> LatencyP99Gate() { return MakeGate(std::string(kLatencyP99), LatencyP99); }
std::unique_ptr<Gate> RetryAmplificationGate() {
  return MakeGate(std::string(kRetryAmplification), RetryAmplification);
}

}  // namespace aftershock::gates
