#include "framework/gates/guard_gates.h"

#include <string>

#include "framework/gates/internal/format_number.h"
#include "framework/gates/internal/totals.h"

namespace aftershock::gates {
namespace {

using internal::D;
using internal::FormatNumber;
using internal::kMaxNamedViolations;
using internal::Totals;

GateResult TrafficServed(const Totals& t) {
  GateResult r{std::string(kTrafficServed), t.ok > 0, "", {{"total_ok", D(t.ok)}, {"total_offered", D(t.offered)}}};
  r.Declare(FigureDirection::kHigherIsBetter, {"total_ok"}).Declare(FigureDirection::kNeither, {"total_offered"});
  r.message = r.passed ? std::to_string(t.ok) + " ok of " + std::to_string(t.offered) + " offered"
                       : "no call succeeded (" + std::to_string(t.offered) +
                             " offered): the run proves nothing about the service";
  return r;
}

GateResult ShedOutweighsFailures(const Totals& t) {
  GateResult r{std::string(kShedOutweighsFailures), !(t.shed > 0 && t.shed >= t.failed), "",
               {{"total_shed", D(t.shed)}, {"total_failed", D(t.failed)}}};
  r.Declare(FigureDirection::kLowerIsBetter, {"total_shed", "total_failed"});
  if (r.passed) {
    r.message = "shed " + std::to_string(t.shed) + " < failed " + std::to_string(t.failed);
  } else {
    r.message = "shed " + std::to_string(t.shed) + " >= failed " + std::to_string(t.failed) +
                ": the in-flight ceiling shaped the result, not the service; raise RESILIENCE_MAX_IN_FLIGHT "
                "above rate x deadline or lower the rate";
  }
  return r;
}

GateResult GeneratorLimited(const metrics::GeneratorHealth* h) {
  GateResult r{std::string(kGeneratorLimited), false, "", {}};
  if (h == nullptr) {
    r.message = "no generator health recorded: cannot tell the generator's limits from the service's";
    return r;
  }
  r.figures = {{"offered_rate", h->offered_rate}, {"achieved_rate", h->achieved_rate},
               {"lag_p50_ms", h->lag_p50_ms},     {"lag_p99_ms", h->lag_p99_ms},
               {"lag_max_ms", h->lag_max_ms},     {"scheduled", D(h->scheduled)},
               {"dispatched", D(h->dispatched)},  {"cpu_seconds", h->cpu_seconds},
               {"pool_waits", D(h->pool_waits)},  {"pool_wait_timeouts", D(h->pool_wait_timeouts)},
               {"pool_wait_ms_total", h->pool_wait_ms_total}, {"pool_waited_then_deadline", D(h->pool_waited_then_deadline)},
               {"generator_failed", D(h->generator_failed)}, {"late_completions", D(h->late_completions)},
               {"completion_lag_max_ms", h->completion_lag_max_ms}};
  r.Declare(FigureDirection::kHigherIsBetter, {"achieved_rate", "dispatched"})
      .Declare(FigureDirection::kLowerIsBetter,
               {"lag_p50_ms", "lag_p99_ms", "lag_max_ms", "cpu_seconds", "pool_waits", "pool_wait_timeouts",
                "pool_wait_ms_total", "pool_waited_then_deadline", "generator_failed", "late_completions",
                "completion_lag_max_ms"})
      .Declare(FigureDirection::kNeither, {"offered_rate", "scheduled"});
  // Generator-side failures are the generator's verdict even if nothing else flagged it.
  r.passed = !h->generator_limited && h->pool_wait_timeouts == 0 && h->pool_waited_then_deadline == 0 &&
             h->generator_failed == 0;
  std::string numbers = "achieved " + FormatNumber(h->achieved_rate) + "/s of " + FormatNumber(h->offered_rate) +
                        "/s offered, dispatch lag p99 " + FormatNumber(h->lag_p99_ms) + " ms, max " +
                        FormatNumber(h->lag_max_ms) + " ms";
  if (h->pool_waits > 0 || h->generator_failed > 0) {
    numbers += ", " + std::to_string(h->pool_waits) + " attempts waited for a connection in the generator's pool (" +
               FormatNumber(h->pool_wait_ms_total / 1000.0) + " s in total), " + std::to_string(h->pool_wait_timeouts) +
               " timed out still waiting, " + std::to_string(h->pool_waited_then_deadline) +
               " hit the deadline after waiting, " + std::to_string(h->generator_failed) + " generator-side failures";
  }
  if (h->late_completions > 0) {
    numbers += ", " + std::to_string(h->late_completions) + " calls finished late past their deadline (latest " +
               FormatNumber(h->completion_lag_max_ms) + " ms)";
  }
  std::string reason = h->reason;
  if (reason.empty() && !r.passed) {
    reason = "attempts timed out waiting for a free connection in the generator's own pool";
  }
  r.message = r.passed ? numbers
                       : "generator-limited (" + (reason.empty() ? std::string("no reason given") : reason) +
                             "): " + numbers + "; the figures describe the generator, not the service";
  return r;
}

GateResult FaultTookEffect(const GateInputs& in) {
  using Outcome = FaultEffect::Outcome;
  GateResult r{std::string(kFaultTookEffect), true, "", {}};
  if (in.planned_faults == 0 && in.fault_effects.empty() && in.skipped_fault_rounds.empty()) {
    return NotApplicable(r.name, "the scenario has no faults");
  }
  std::size_t confirmed = 0, unconfirmed = 0, clean = 0, residue = 0, opted_out = 0;
  std::string problems, opt_outs, proofs;
  std::size_t named_proofs = 0;
  for (const FaultEffect& e : in.fault_effects) {
    const std::string what = e.fault + " round " + std::to_string(e.round) + (e.revert ? " revert" : "");
    switch (e.outcome) {
      case Outcome::kConfirmed:
        (e.revert ? clean : confirmed) += 1;
        if (!e.revert && named_proofs++ < kMaxNamedViolations) proofs += (proofs.empty() ? "" : "; ") + what + ": " + e.detail;
        break;
      case Outcome::kNotConfirmed:
        (e.revert ? residue : unconfirmed) += 1;
        problems += (problems.empty() ? "" : "; ") + what + (e.revert ? ": residue: " : ": not confirmed: ") + e.detail;
        break;
      case Outcome::kNotConfirmable:
        opted_out += 1;
        opt_outs += (opt_outs.empty() ? "" : "; ") + what + ": not confirmable: " + e.detail;
        break;
    }
  }
  std::string skipped;
  for (const SkippedFaultRound& k : in.skipped_fault_rounds) {
    skipped += (skipped.empty() ? "" : "; ") + k.fault + " round " + std::to_string(k.round) + ": did not happen: " + k.why;
  }
  r.figures = {{"fault_rounds_confirmed", D(confirmed)},
               {"fault_rounds_unconfirmed", D(unconfirmed)},
               {"fault_rounds_skipped", D(in.skipped_fault_rounds.size())},
               {"fault_reverts_clean", D(clean)},
               {"fault_reverts_residue", D(residue)},
               {"fault_confirmations_opted_out", D(opted_out)}};
  r.Declare(FigureDirection::kHigherIsBetter, {"fault_rounds_confirmed", "fault_reverts_clean"})
      .Declare(FigureDirection::kLowerIsBetter,
               {"fault_rounds_unconfirmed", "fault_rounds_skipped", "fault_reverts_residue"})
      .Declare(FigureDirection::kNeither, {"fault_confirmations_opted_out"});
  if (in.fault_effects.empty()) {
    r.passed = false;
    r.message = std::to_string(in.planned_faults) + " faults planned but no round was applied and confirmed" +
                (skipped.empty() ? "" : " (" + skipped + ")");
    return r;
  }
  r.passed = unconfirmed == 0 && residue == 0 && in.skipped_fault_rounds.empty();
  const std::string counts = std::to_string(confirmed) + " rounds confirmed, " + std::to_string(unconfirmed) +
                             " not, " + std::to_string(in.skipped_fault_rounds.size()) + " skipped; " +
                             std::to_string(clean) + " reverts clean, " + std::to_string(residue) +
                             " with residue; " + std::to_string(opted_out) + " not confirmable";
  if (!skipped.empty()) problems += (problems.empty() ? "" : "; ") + skipped;
  if (!r.passed) {
    r.message = problems + " (" + counts + "): a planned fault round that did not happen or did not take effect "
                "tested nothing";
  } else {
    r.message = counts;
    if (!proofs.empty()) r.message += " (" + proofs + (named_proofs > kMaxNamedViolations ? "; ..." : "") + ")";
  }
  if (!opt_outs.empty()) r.message += "; " + opt_outs;
  return r;
}

GateResult FaultLeaseHeld(const GateInputs& in) {
  if (in.fault_leases.empty()) return NotApplicable(std::string(kFaultLeaseHeld), "no fault held a lease");
  GateResult r{std::string(kFaultLeaseHeld), true, "", {}};
  std::uint64_t expiries = 0;
  std::string problems, held;
  for (const FaultLeaseAccount& a : in.fault_leases) {
    if (!a.read_error.empty()) {
      problems += (problems.empty() ? "" : "; ") + a.lease + ": cannot tell whether it held: " + a.read_error;
      continue;
    }
    const std::uint64_t n = a.expiries_after >= a.expiries_before ? a.expiries_after - a.expiries_before : 1;
    expiries += n;
    if (n == 0) {
      held += (held.empty() ? "" : ", ") + a.lease;
      continue;
    }
    std::string when = a.last_expiry_seconds >= 0 ? " (the last at second " + FormatNumber(a.last_expiry_seconds) : " (";
    when += (a.last_expiry_seconds >= 0 ? ": " : "") + (a.last_expiry.empty() ? std::string("no detail") : a.last_expiry) + ")";
    problems += (problems.empty() ? "" : "; ") + a.lease + "'s fault lease expired " + std::to_string(n) +
                " time(s) during the run" + when;
  }
  r.figures = {{"fault_lease_expiries", D(expiries)}};
  r.Declare(FigureDirection::kLowerIsBetter, {"fault_lease_expiries"});
  r.passed = problems.empty();
  if (r.passed) {
    r.message = "held throughout: " + held;
  } else if (expiries > 0) {
    r.message = problems + ": the lease's owner reverted the faults mid-run, so the run did not test what it planned";
  } else {
    r.message = problems + ": a lease that cannot be read may have expired unseen";
  }
  return r;
}

}  // namespace

std::unique_ptr<Gate> TrafficServedGate() {
  return MakeGate(std::string(kTrafficServed),
                  [](const GateInputs& in) { return TrafficServed(internal::Sum(in.timeline)); });
}
std::unique_ptr<Gate> ShedOutweighsFailuresGate() {
  return MakeGate(std::string(kShedOutweighsFailures),
                  [](const GateInputs& in) { return ShedOutweighsFailures(internal::Sum(in.timeline)); });
}
std::unique_ptr<Gate> GeneratorLimitedGate() {
  return MakeGate(std::string(kGeneratorLimited), [](const GateInputs& in) { return GeneratorLimited(in.health); });
}
std::unique_ptr<Gate> FaultTookEffectGate() { return MakeGate(std::string(kFaultTookEffect), FaultTookEffect); }
std::unique_ptr<Gate> FaultLeaseHeldGate() { return MakeGate(std::string(kFaultLeaseHeld), FaultLeaseHeld); }

}  // namespace aftershock::gates
