#include "framework/gates/gates.h"

#include <algorithm>
#include <cmath>

#include "framework/gates/internal/format_number.h"

namespace aftershock::gates {
namespace {

using internal::FormatNumber;
using ledger::VerificationReport;
using ledger::Violation;

constexpr std::size_t kMaxNamedViolations = 10;

struct Totals {
  std::uint64_t offered = 0;
  std::uint64_t ok = 0;
  std::uint64_t failed = 0;
  std::uint64_t shed = 0;
};

Totals Sum(const metrics::LoadTimeline& timeline) {
  Totals t;
  for (const metrics::SecondBucket& b : timeline.seconds()) {
    t.offered += b.offered;
    t.ok += b.ok;
    t.failed += b.failed;
    t.shed += b.shed;
  }
  return t;
}

double D(std::uint64_t v) { return static_cast<double>(v); }

GateResult TrafficServed(const Totals& t) {
  GateResult r{std::string(kTrafficServed), t.ok > 0, "", {{"total_ok", D(t.ok)}, {"total_offered", D(t.offered)}}};
  r.message = r.passed ? std::to_string(t.ok) + " ok of " + std::to_string(t.offered) + " offered"
                       : "no call succeeded (" + std::to_string(t.offered) +
                             " offered): the run proves nothing about the service";
  return r;
}

GateResult LedgerNotEmpty(const GateInputs& in) {
  GateResult r{std::string(kLedgerNotEmpty), true, "", {{"ledger_acknowledged", D(in.ledger_acknowledged)}}};
  const VerificationReport* v = in.verification;
  if (v != nullptr) {
    r.figures.insert(r.figures.end(), {{"verification_checked", D(v->checked)},
                                       {"verification_errors", D(v->errors)},
                                       {"verification_unverified", D(v->unverified)},
                                       {"indeterminate_total", D(v->indeterminate_total)},
                                       {"indeterminate_committed", D(v->indeterminate_committed)},
                                       {"indeterminate_not_committed", D(v->indeterminate_not_committed)},
                                       {"indeterminate_unknown", D(v->indeterminate_unknown)}});
  }
  if (!in.require_promises) {
    r.message = "not required (the scenario makes no promises)";
    return r;
  }
  std::string problems;
  if (in.ledger_acknowledged == 0) problems = "no promise was acknowledged";
  if (v == nullptr) {
    problems += std::string(problems.empty() ? "" : "; ") + "no verification was run";
  } else if (v->checked == 0) {
    problems += std::string(problems.empty() ? "" : "; ") + "verification checked 0 of " +
                std::to_string(v->sample_size) + " sampled promises (" + std::to_string(v->errors) + " errors, " +
                std::to_string(v->unverified) + " unverified)";
    if (!v->error_samples.empty()) problems += ", first error: " + v->error_samples.front();
  }
  r.passed = problems.empty();
  if (r.passed) {
    r.message = std::to_string(in.ledger_acknowledged) + " acknowledged, " + std::to_string(v->checked) + " of " +
                std::to_string(v->sample_size) + " sampled checked (" + std::to_string(v->errors) + " errors, " +
                std::to_string(v->unverified) + " unverified); indeterminate " +
                std::to_string(v->indeterminate_total) + ": " + std::to_string(v->indeterminate_committed) +
                " committed, " + std::to_string(v->indeterminate_not_committed) + " not, " +
                std::to_string(v->indeterminate_unknown) + " unknown";
  } else {
    r.message = problems;
  }
  return r;
}

std::string Percent(double ratio) { return FormatNumber(ratio * 100) + " %"; }

GateResult VerificationDecided(const GateInputs& in) {
  GateResult r{std::string(kVerificationDecided), true, "", {{"max_undecided_ratio", in.max_undecided_ratio}}};
  if (!in.require_promises) {
    r.message = "not applicable (the target declares it makes no promises)";
    return r;
  }
  const VerificationReport* v = in.verification;
  if (v == nullptr) {
    r.passed = false;
    r.message = "no verification was run: nothing was decided";
    return r;
  }
  const std::size_t undecided = v->undecided();
  const double ratio = v->sample_size == 0 ? 0.0 : D(undecided) / D(v->sample_size);
  const bool exhaustive = v->sample_size >= in.ledger_acknowledged;
  r.figures.insert(r.figures.end(), {{"verification_sample_size", D(v->sample_size)},
                                     {"verification_undecided", D(undecided)},
                                     {"verification_undecided_ratio", ratio},
                                     {"verification_retries", D(v->retries)},
                                     {"ledger_exhaustive", exhaustive ? 1.0 : 0.0},
                                     {"ledger_pinned", D(in.ledger_pinned)},
                                     {"ledger_fault_overflow", D(in.ledger_fault_overflow)}});
  std::string coverage = exhaustive ? "exhaustive: " + std::to_string(v->sample_size) + " of " +
                                          std::to_string(in.ledger_acknowledged) + " acknowledged promises verified"
                                    : "sampled: " + std::to_string(v->sample_size) + " of " +
                                          std::to_string(in.ledger_acknowledged) +
                                          " acknowledged promises verified (" + std::to_string(in.ledger_pinned) +
                                          " kept near faults, " + std::to_string(in.ledger_fault_overflow) +
                                          " near faults did not fit)";
  r.passed = ratio <= in.max_undecided_ratio + 1e-12;
  r.message = coverage + "; " + std::to_string(undecided) + " undecided";
  if (undecided > 0) {
    r.message += " (" + Percent(ratio) + ":";
    bool first = true;
    for (const auto& [code, count] : v->undecided_by_code) {
      r.message += std::string(first ? " " : ", ") + code + " " + std::to_string(count);
      first = false;
    }
    r.message += ")";
  }
  r.message += ", budget " + Percent(in.max_undecided_ratio);
  if (v->retries > 0) r.message += "; " + std::to_string(v->retries) + " transient errors retried";
  if (!r.passed) {
    r.message += ": verification did not decide, so P2/P3 prove nothing about these promises";
    if (!v->error_samples.empty()) r.message += "; first error: " + v->error_samples.front();
  }
  return r;
}

GateResult LongestOutageGate(const metrics::LoadTimeline& timeline, const GateBudgets& budgets) {
  const Outage o = LongestOutage(timeline);
  GateResult r{std::string(kLongestOutage), D(o.seconds) <= budgets.max_outage_seconds, "",
               {{"longest_outage_seconds", D(o.seconds)},
                {"longest_outage_first_second", static_cast<double>(o.first_second)},
                {"max_outage_seconds", budgets.max_outage_seconds}}};
  r.message = std::to_string(o.seconds) + " s";
  if (o.seconds > 0) r.message += " from second " + std::to_string(o.first_second);
  r.message += " (budget " + FormatNumber(budgets.max_outage_seconds) + " s)";
  return r;
}

double GapBudgetSeconds(const GateBudgets& budgets) {
  return budgets.max_gap_seconds ? *budgets.max_gap_seconds : budgets.max_outage_seconds;
}

GateResult LongestGapGate(const metrics::LoadTimeline& timeline, const GateBudgets& budgets) {
  const SuccessGap g = LongestSuccessGap(timeline);
  const double budget = GapBudgetSeconds(budgets);
  GateResult r{std::string(kLongestGap), g.ms <= budget * 1000.0, "",
               {{"p1_longest_gap_ms", g.ms}, {"p1_longest_gap_start_ms", g.start_ms}, {"max_gap_seconds", budget}}};
  r.message = FormatNumber(g.ms / 1000.0) + " s between successes";
  if (g.start_ms >= 0) r.message += " from " + FormatNumber(g.start_ms / 1000.0) + " s";
  r.message += " (budget " + FormatNumber(budget) + " s)";
  return r;
}

GateResult UnavailableGate(const metrics::LoadTimeline& timeline, const GateBudgets& budgets) {
  const double u = UnavailableSeconds(timeline);
  GateResult r{std::string(kUnavailableSeconds), u <= budgets.max_unavailable_seconds, "",
               {{"unavailable_seconds", u}, {"max_unavailable_seconds", budgets.max_unavailable_seconds}}};
  r.message = FormatNumber(u) + " s failure-equivalent (budget " + FormatNumber(budgets.max_unavailable_seconds) +
              " s)";
  return r;
}

// Adds <prefix>_round_<n> for every round and <prefix>_min / _max over them (-1: did not recover;
// _max is -1 when any round did not).
void AddRoundFigures(GateResult& r, const std::string& prefix, const std::vector<std::optional<double>>& rounds) {
  double min = -1, max = -1;
  bool all = true;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    r.figures.emplace_back(prefix + "_round_" + std::to_string(i + 1), rounds[i] ? *rounds[i] : -1.0);
    if (!rounds[i]) {
      all = false;
      continue;
    }
    min = min < 0 ? *rounds[i] : std::min(min, *rounds[i]);
    max = std::max(max, *rounds[i]);
  }
  r.figures.emplace_back(prefix + "_min", min);
  r.figures.emplace_back(prefix + "_max", all ? max : -1.0);
}

GateResult TimeToRecoverGate(const metrics::LoadTimeline& timeline, const std::vector<FaultWindow>& faults,
                             const GateBudgets& budgets) {
  GateResult r{std::string(kTimeToRecover), true, "", {}};
  if (faults.empty()) {
    r.message = "no faults";
    return r;
  }
  const double budget_ms = budgets.max_recovery_seconds * 1000.0;
  std::vector<std::optional<double>> from_revert, from_apply;
  std::string parts;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const FaultWindow& f = faults[i];
    const double apply_ms = f.apply_ms >= 0 ? f.apply_ms : static_cast<double>(f.begin_second) * 1000.0;
    const double revert_ms = f.revert_ms >= 0 ? f.revert_ms : static_cast<double>(f.end_second) * 1000.0;
    const bool has_duration = revert_ms > apply_ms;
    // Whole seconds from the end, as before (per fault name: the last round of that name wins).
    const std::optional<double> ttr = TimeToRecover(timeline, f, budgets);
    r.figures.emplace_back("time_to_recover_" + f.name, ttr ? *ttr : -1.0);  // -1: did not recover
    const std::optional<double> revert = TimeToRecoverMs(timeline, revert_ms, budgets);
    const std::optional<double> apply = has_duration ? TimeToRecoverMs(timeline, apply_ms, budgets) : revert;
    from_revert.push_back(revert);
    from_apply.push_back(apply);
    // Recovered before the revert (e.g. a failover while the old primary is still down): the time
    // from the apply is the recovery that counts, and it is judged too.
    const bool inside = has_duration && apply && apply_ms + *apply < revert_ms;

    if (!parts.empty()) parts += ", ";
    parts += f.name;
    if (faults.size() > 1) parts += " (round " + std::to_string(i + 1) + ")";
    if (!revert) {
      r.passed = false;
      parts += " did not recover (fault ended at " + FormatNumber(revert_ms / 1000.0) +
               " s, timeline ends at second " + std::to_string(timeline.size()) + ")";
    } else {
      parts += " " + FormatNumber(*revert / 1000.0) + " s";
      if (has_duration) parts += " after the revert";
      if (*revert > budget_ms) {
        r.passed = false;
        parts += " (over budget)";
      }
    }
    if (has_duration && apply) {
      parts += " and " + FormatNumber(*apply / 1000.0) + " s after the apply";
      if (inside) {
        parts += " (recovered inside the fault window";
        if (*apply > budget_ms) {
          r.passed = false;
          parts += ", over budget";
        }
        parts += ")";
      }
    }
  }
  AddRoundFigures(r, "time_to_recover_ms", from_revert);
  AddRoundFigures(r, "time_to_recover_from_apply_ms", from_apply);
  r.message = parts + " (budget " + FormatNumber(budgets.max_recovery_seconds) + " s to " +
              std::to_string(budgets.recovery_stable_seconds) + " s in a row at >= " +
              FormatNumber(budgets.recovery_success_ratio * 100) + "% ok)";
  return r;
}

// Shared by P2 and P3: "not applicable" / "no verification" handling.
bool PromiseGateWithoutReport(const GateInputs& in, GateResult& r) {
  if (in.verification != nullptr) return false;
  r.passed = !in.require_promises;
  r.message = in.require_promises ? "no verification report (nothing was checked)"
                                  : "not required (the scenario makes no promises)";
  return true;
}

GateResult PromiseStability(const GateInputs& in) {
  GateResult r{std::string(kPromiseStability), true, "", {}};
  if (PromiseGateWithoutReport(in, r)) return r;
  const VerificationReport& v = *in.verification;
  r.figures = {{"p2_violations", D(v.p2_violations)}, {"verification_checked", D(v.checked)}};
  r.passed = v.p2_violations == 0;
  if (r.passed) {
    r.message = "0 changed of " + std::to_string(v.checked) + " checked";
    return r;
  }
  r.message = std::to_string(v.p2_violations) + " promises changed on re-issue (of " + std::to_string(v.checked) +
              " checked):";
  std::size_t named = 0;
  for (const Violation& x : v.violations) {
    if (x.property != Violation::Property::kP2Stability) continue;
    if (named++ == kMaxNamedViolations) break;
    r.message += (named == 1 ? " " : ", ") + std::string("'") + x.key + "' acknowledged '" + x.expected +
                 "' now '" + x.observed + "'";
  }
  if (v.p2_violations > kMaxNamedViolations) {
    r.message += ", and " + std::to_string(v.p2_violations - kMaxNamedViolations) + " more";
  }
  return r;
}

GateResult ReverseLookup(const GateInputs& in) {
  GateResult r{std::string(kReverseLookup), true, "", {}};
  if (PromiseGateWithoutReport(in, r)) return r;
  const VerificationReport& v = *in.verification;
  std::size_t not_found = 0;
  std::size_t wrong_key = 0;
  for (const Violation& x : v.violations) {
    if (x.property != Violation::Property::kP3ReverseLookup) continue;
    (x.kind == Violation::Kind::kNotFound ? not_found : wrong_key) += 1;
  }
  r.figures = {{"p3_violations", D(v.p3_violations)},
               {"p3_not_found", D(not_found)},
               {"p3_wrong_key", D(wrong_key)},
               {"verification_checked", D(v.checked)}};
  r.passed = v.p3_violations == 0;
  if (r.passed) {
    r.message = "0 lost of " + std::to_string(v.checked) + " checked";
    return r;
  }
  r.message = std::to_string(v.p3_violations) + " promises lost (" + std::to_string(not_found) + " NotFound, " +
              std::to_string(wrong_key) + " wrong key; of " + std::to_string(v.checked) + " checked):";
  std::size_t named = 0;
  for (const Violation& x : v.violations) {
    if (x.property != Violation::Property::kP3ReverseLookup) continue;
    if (named++ == kMaxNamedViolations) break;
    r.message += (named == 1 ? " " : ", ") + std::string("'") + x.key + "' -> '" + x.value + "' ";
    r.message += x.kind == Violation::Kind::kNotFound ? "NotFound" : "wrong key (read back '" + x.observed + "')";
  }
  if (v.p3_violations > kMaxNamedViolations) {
    r.message += ", and " + std::to_string(v.p3_violations - kMaxNamedViolations) + " more";
  }
  return r;
}

GateResult ShedOutweighsFailures(const Totals& t) {
  GateResult r{std::string(kShedOutweighsFailures), !(t.shed > 0 && t.shed >= t.failed), "",
               {{"total_shed", D(t.shed)}, {"total_failed", D(t.failed)}}};
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
               {"generator_failed", D(h->generator_failed)}};
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
  if (in.planned_faults == 0 && in.fault_effects.empty()) {
    r.message = "not applicable (the scenario has no faults)";
    return r;
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
  r.figures = {{"fault_rounds_confirmed", D(confirmed)},
               {"fault_rounds_unconfirmed", D(unconfirmed)},
               {"fault_reverts_clean", D(clean)},
               {"fault_reverts_residue", D(residue)},
               {"fault_confirmations_opted_out", D(opted_out)}};
  if (in.fault_effects.empty()) {
    r.passed = false;
    r.message = std::to_string(in.planned_faults) + " faults planned but no round was applied and confirmed";
    return r;
  }
  r.passed = unconfirmed == 0 && residue == 0;
  const std::string counts = std::to_string(confirmed) + " rounds confirmed, " + std::to_string(unconfirmed) +
                             " not; " + std::to_string(clean) + " reverts clean, " + std::to_string(residue) +
                             " with residue; " + std::to_string(opted_out) + " not confirmable";
  if (!r.passed) {
    r.message = problems + " (" + counts + "): a fault that did not take effect tested nothing";
  } else {
    r.message = counts;
    if (!proofs.empty()) r.message += " (" + proofs + (named_proofs > kMaxNamedViolations ? "; ..." : "") + ")";
  }
  if (!opt_outs.empty()) r.message += "; " + opt_outs;
  return r;
}

}  // namespace

std::vector<GateResult> EvaluateGates(const GateInputs& in) {
  const metrics::LoadTimeline empty;
  const metrics::LoadTimeline& timeline = in.timeline != nullptr ? *in.timeline : empty;
  const Totals totals = Sum(timeline);
  std::vector<GateResult> results;
  results.push_back(TrafficServed(totals));
  results.push_back(LedgerNotEmpty(in));
  results.push_back(VerificationDecided(in));
  results.push_back(LongestOutageGate(timeline, in.budgets));
  results.push_back(LongestGapGate(timeline, in.budgets));
  results.push_back(UnavailableGate(timeline, in.budgets));
  results.push_back(TimeToRecoverGate(timeline, in.faults, in.budgets));
  results.push_back(PromiseStability(in));
  results.push_back(ReverseLookup(in));
  results.push_back(ShedOutweighsFailures(totals));
  results.push_back(GeneratorLimited(in.health));
  results.push_back(FaultTookEffect(in));
  return results;
}

std::vector<GateResult> EvaluatePromiseGates(const GateInputs& in) {
  return {LedgerNotEmpty(in), VerificationDecided(in), PromiseStability(in), ReverseLookup(in)};
}

bool AllPassed(const std::vector<GateResult>& results) {
  for (const GateResult& r : results) {
    if (!r.passed) return false;
  }
  return true;
}

std::string FormatGateReport(const std::vector<GateResult>& results) {
  std::string out;
  for (const GateResult& r : results) out += (r.passed ? "PASS " : "FAIL ") + r.name + ": " + r.message + "\n";
  return out;
}

std::vector<std::string> FailureReasons(const std::vector<GateResult>& results) {
  std::vector<std::string> reasons;
  for (const GateResult& r : results) {
    if (!r.passed) reasons.push_back(r.name + ": " + r.message);
  }
  return reasons;
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
