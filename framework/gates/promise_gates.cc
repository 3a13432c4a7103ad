#include "framework/gates/promise_gates.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/gates/internal/format_number.h"
#include "framework/gates/internal/totals.h"

namespace aftershock::gates {
namespace {

using internal::D;
using internal::FormatNumber;
using internal::Percent;
using internal::kMaxNamedViolations;
using ledger::VerificationReport;
using ledger::Violation;

constexpr const char* kNoPromises = "the target makes no promises";

// All four promise gates: nothing to check for a target without promises (and no report).
bool MakesNoPromises(const GateInputs& in) { return !in.require_promises && in.verification == nullptr; }

GateResult LedgerNotEmpty(const GateInputs& in) {
  GateResult r{std::string(kLedgerNotEmpty), true, "", {{"ledger_acknowledged", D(in.ledger_acknowledged)}}};
  if (MakesNoPromises(in)) return NotApplicable(r.name, kNoPromises, r.figures);
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
  r.Declare(FigureDirection::kHigherIsBetter, {"verification_checked"})
      .Declare(FigureDirection::kLowerIsBetter,
               {"verification_errors", "verification_unverified", "indeterminate_unknown"})
      .Declare(FigureDirection::kNeither, {"ledger_acknowledged", "indeterminate_total", "indeterminate_committed",
                                           "indeterminate_not_committed"});
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

GateResult VerificationDecided(const GateInputs& in) {
  GateResult r{std::string(kVerificationDecided), true, "", {{"max_undecided_ratio", in.max_undecided_ratio}}};
  if (MakesNoPromises(in)) return NotApplicable(r.name, kNoPromises, r.figures);
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
  // The undecided share rises when verification gets worse: lower is better (a name-guessing compare
  // once read "ratio" as higher-is-better here).
  r.Declare(FigureDirection::kLowerIsBetter, {"verification_undecided", "verification_undecided_ratio",
                                              "verification_retries", "ledger_fault_overflow"})
      .Declare(FigureDirection::kHigherIsBetter, {"ledger_exhaustive"})
      .Declare(FigureDirection::kNeither, {"max_undecided_ratio", "verification_sample_size", "ledger_pinned"});
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

// Shared by P2 and P3: the result when there is no report or nothing of this property to judge;
// nullopt when the property is to be judged. `decided` / `violations`: the report's counts for it.
std::optional<GateResult> WithoutDecisions(const GateInputs& in, const std::string& name, const char* property,
                                           std::size_t decided, std::size_t violations) {
  if (MakesNoPromises(in)) return NotApplicable(name, kNoPromises);
  if (in.verification == nullptr) return GateResult{name, false, "no verification report (nothing was checked)", {}};
  const VerificationReport& v = *in.verification;
  if (decided > 0 || violations > 0) return std::nullopt;
  const std::vector<std::pair<std::string, double>> figures = {{"verification_checked", D(v.checked)}};
  if (v.sample_size == 0) return NotApplicable(name, std::string("no promise to check for ") + property, figures);
  if (v.checked > 0 || v.undecided() == 0) {
    std::string why = std::string("the verifier checks no ") + property + " (decided for 0 of " +
                      std::to_string(v.sample_size) + " sampled promises, " + std::to_string(v.checked) + " checked)";
    if (name == kPromiseStability && v.stability_without_reissue > 0) {
      why += "; " + std::to_string(v.stability_without_reissue) +
             " checks claimed stability without a re-issue's answer (PromiseCheck::SetReissued), which decides nothing";
    }
    return NotApplicable(name, why, figures);
  }
  return GateResult{name, false,
                    std::string(property) + " was decided for none of the " + std::to_string(v.sample_size) +
                        " sampled promises (" + std::to_string(v.undecided()) + " undecided): nothing proves it",
                    figures};
}

GateResult PromiseStability(const GateInputs& in) {
  const std::string name(kPromiseStability);
  const std::size_t decided = in.verification ? in.verification->p2_decided : 0;
  const std::size_t violations = in.verification ? in.verification->p2_violations : 0;
  if (auto early = WithoutDecisions(in, name, "re-issue stability", decided, violations)) return *early;
  const VerificationReport& v = *in.verification;
  GateResult r{name, v.p2_violations == 0, "",
               {{"p2_violations", D(v.p2_violations)}, {"p2_decided", D(v.p2_decided)},
                {"verification_checked", D(v.checked)}}};
  r.Declare(FigureDirection::kLowerIsBetter, {"p2_violations"})
      .Declare(FigureDirection::kHigherIsBetter, {"p2_decided", "verification_checked"});
  if (r.passed) {
    r.message = "0 changed of " + std::to_string(v.p2_decided) + " checked";
    return r;
  }
  r.message = std::to_string(v.p2_violations) + " promises changed on re-issue (of " +
              std::to_string(v.p2_decided) + " checked):";
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
  const std::string name(kReverseLookup);
  const std::size_t decided = in.verification ? in.verification->p3_decided : 0;
  const std::size_t violations = in.verification ? in.verification->p3_violations : 0;
  if (auto early = WithoutDecisions(in, name, "reverse lookup", decided, violations)) return *early;
  const VerificationReport& v = *in.verification;
  std::size_t not_found = 0;
  std::size_t wrong_key = 0;
  for (const Violation& x : v.violations) {
    if (x.property != Violation::Property::kP3ReverseLookup) continue;
    (x.kind == Violation::Kind::kNotFound ? not_found : wrong_key) += 1;
  }
  GateResult r{name, v.p3_violations == 0, "",
               {{"p3_violations", D(v.p3_violations)},
                {"p3_not_found", D(not_found)},
                {"p3_wrong_key", D(wrong_key)},
                {"p3_decided", D(v.p3_decided)},
                {"verification_checked", D(v.checked)}}};
  r.Declare(FigureDirection::kLowerIsBetter, {"p3_violations", "p3_not_found", "p3_wrong_key"})
      .Declare(FigureDirection::kHigherIsBetter, {"p3_decided", "verification_checked"});
  if (r.passed) {
    r.message = "0 lost of " + std::to_string(v.p3_decided) + " checked";
    return r;
  }
  r.message = std::to_string(v.p3_violations) + " promises lost (" + std::to_string(not_found) + " NotFound, " +
              std::to_string(wrong_key) + " wrong key; of " + std::to_string(v.p3_decided) + " checked):";
  std::size_t named = 0;
  for (const Violation& x : v.violations) {
    if (x.property != Violation::Property::kP3ReverseLookup) continue;
    if (named++ == kMaxNamedViolations) break;
    r.message += (named == 1 ? " " : ", ") + std::string("'") + x.key + "' -> '" + x.value + "' ";
    const bool read_back = x.promise_kind == ledger::PromiseKind::kWritten;  // key -> value: the value is read
    r.message += x.kind == Violation::Kind::kNotFound ? std::string("NotFound")
                 : read_back ? "wrong value (read back '" + x.observed + "')"
                             : "wrong key (read back '" + x.observed + "')";
  }
  if (v.p3_violations > kMaxNamedViolations) {
    r.message += ", and " + std::to_string(v.p3_violations - kMaxNamedViolations) + " more";
  }
  return r;
}

}  // namespace

std::unique_ptr<Gate> LedgerNotEmptyGate() { return MakeGate(std::string(kLedgerNotEmpty), LedgerNotEmpty); }
std::unique_ptr<Gate> VerificationDecidedGate() {
  return MakeGate(std::string(kVerificationDecided), VerificationDecided);
}
std::unique_ptr<Gate> PromiseStabilityGate() { return MakeGate(std::string(kPromiseStability), PromiseStability); }
std::unique_ptr<Gate> ReverseLookupGate() { return MakeGate(std::string(kReverseLookup), ReverseLookup); }

}  // namespace aftershock::gates
