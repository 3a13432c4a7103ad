#include "framework/gates/availability_gates.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "framework/gates/internal/format_number.h"
#include "framework/gates/internal/totals.h"

namespace aftershock::gates {
namespace {

using internal::D;
using internal::FormatNumber;

const metrics::LoadTimeline& TimelineOf(const GateInputs& in) {
  static const metrics::LoadTimeline kEmpty;
  return in.timeline != nullptr ? *in.timeline : kEmpty;
}

// "1.204 s without a success from 41.3 s": the outage as one duration, to the millisecond.
std::string GapText(const SuccessGap& g) {
  std::string text = FormatNumber(g.ms / 1000.0) + " s without a success";
  if (g.start_ms >= 0) text += " from " + FormatNumber(g.start_ms / 1000.0) + " s";
  return text;
}

GateResult JudgeLongestOutage(const metrics::LoadTimeline& timeline, const GateBudgets& budgets) {
  const Outage o = LongestOutage(timeline);
  const SuccessGap g = LongestSuccessGap(timeline);
  GateResult r{std::string(kLongestOutage), D(o.seconds) <= budgets.max_outage_seconds, "",
               {{"longest_outage_seconds", D(o.seconds)},
                {"longest_outage_first_second", static_cast<double>(o.first_second)},
                {"max_outage_seconds", budgets.max_outage_seconds}}};
  r.Declare(FigureDirection::kLowerIsBetter, {"longest_outage_seconds"})
      .Declare(FigureDirection::kNeither, {"longest_outage_first_second", "max_outage_seconds"});
  // Whole seconds only: never a bare "0 s" standing for an outage that happened inside two seconds
  // that each saw a success; the duration itself is p1-longest-gap's, and named here too.
  r.message = std::to_string(o.seconds) + (o.seconds == 1 ? " whole second" : " whole seconds") + " without any success";
  if (o.seconds > 0) r.message += " from second " + std::to_string(o.first_second);
  r.message += " (budget " + FormatNumber(budgets.max_outage_seconds) + " s); the longest gap to the ms: " + GapText(g) +
               " (" + std::string(kLongestGap) + ")";
  return r;
}

double GapBudgetSeconds(const GateBudgets& budgets) {
  return budgets.max_gap_seconds ? *budgets.max_gap_seconds : budgets.max_outage_seconds;
}

GateResult JudgeLongestGap(const metrics::LoadTimeline& timeline, const GateBudgets& budgets) {
  const SuccessGap g = LongestSuccessGap(timeline);
  const double budget = GapBudgetSeconds(budgets);
  GateResult r{std::string(kLongestGap), g.ms <= budget * 1000.0, "",
               {{"p1_longest_gap_ms", g.ms}, {"p1_longest_gap_start_ms", g.start_ms}, {"max_gap_seconds", budget}}};
  r.Declare(FigureDirection::kLowerIsBetter, {"p1_longest_gap_ms"})
      .Declare(FigureDirection::kNeither, {"p1_longest_gap_start_ms", "max_gap_seconds"});
  r.message = GapText(g) + " (budget " + FormatNumber(budget) + " s)";
  return r;
}

GateResult JudgeUnavailable(const metrics::LoadTimeline& timeline, const GateBudgets& budgets) {
  const double u = UnavailableSeconds(timeline);
  GateResult r{std::string(kUnavailableSeconds), u <= budgets.max_unavailable_seconds, "",
               {{"unavailable_seconds", u}, {"max_unavailable_seconds", budgets.max_unavailable_seconds}}};
  r.Declare(FigureDirection::kLowerIsBetter, {"unavailable_seconds"})
      .Declare(FigureDirection::kNeither, {"max_unavailable_seconds"});
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

GateResult JudgeTimeToRecover(const metrics::LoadTimeline& timeline, const std::vector<FaultWindow>& faults,
                             const GateBudgets& budgets) {
  GateResult r{std::string(kTimeToRecover), true, "", {}};
  if (faults.empty()) return NotApplicable(r.name, "no fault round to recover from");
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
  // Every figure here is a recovery time (-1: never recovered, compared as the worst).
  for (const auto& [name, value] : r.figures) r.directions[name] = FigureDirection::kLowerIsBetter;
  r.message = parts + " (budget " + FormatNumber(budgets.max_recovery_seconds) + " s to " +
              std::to_string(budgets.recovery_stable_seconds) + " s in a row at >= " +
              FormatNumber(budgets.recovery_success_ratio * 100) + "% ok)";
  return r;
}

// A scenario that declared it does not judge availability (an overload by design) gets its reason
// instead of a budget as long as the run.
std::optional<GateResult> NotJudged(std::string_view name, const GateInputs& in) {
  if (in.availability_not_judged.empty()) return std::nullopt;
  return NotApplicable(std::string(name), "the scenario does not judge availability: " + in.availability_not_judged);
}

}  // namespace

std::unique_ptr<Gate> LongestOutageGate() {
  return MakeGate(std::string(kLongestOutage), [](const GateInputs& in) {
    if (auto not_judged = NotJudged(kLongestOutage, in)) return *not_judged;
    return JudgeLongestOutage(TimelineOf(in), in.budgets);
  });
}
std::unique_ptr<Gate> LongestGapGate() {
  return MakeGate(std::string(kLongestGap), [](const GateInputs& in) {
    if (auto not_judged = NotJudged(kLongestGap, in)) return *not_judged;
    return JudgeLongestGap(TimelineOf(in), in.budgets);
  });
}
std::unique_ptr<Gate> UnavailableSecondsGate() {
  return MakeGate(std::string(kUnavailableSeconds), [](const GateInputs& in) {
    if (auto not_judged = NotJudged(kUnavailableSeconds, in)) return *not_judged;
    return JudgeUnavailable(TimelineOf(in), in.budgets);
  });
}
std::unique_ptr<Gate> TimeToRecoverGate() {
  return MakeGate(std::string(kTimeToRecover),
                  [](const GateInputs& in) { return JudgeTimeToRecover(TimelineOf(in), in.faults, in.budgets); });
}

}  // namespace aftershock::gates
