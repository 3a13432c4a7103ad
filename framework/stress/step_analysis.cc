#include "framework/stress/step_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "framework/metrics/latency_histogram.h"
#include "framework/stress/internal/format.h"

namespace aftershock::stress {
namespace {

using internal::Fixed;
using internal::Join;
using internal::Num;

constexpr double kEpsilon = 1e-9;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void AddMode(std::vector<std::string>& modes, const std::string& mode) {
  if (std::find(modes.begin(), modes.end(), mode) == modes.end()) modes.push_back(mode);
}

void Validate(const StepAnalysisOptions& o) {
  const std::string who = "step analysis of stage '" + o.stage + "': ";
  if (o.stage.empty()) throw std::invalid_argument("step analysis: no stage named (StepAnalysisOptions::stage)");
  if (!(o.transition_seconds >= 0) || !std::isfinite(o.transition_seconds)) {
    throw std::invalid_argument(who + "transition_seconds must be >= 0");
  }
  if (!(o.slo.p99_max_ms > 0)) throw std::invalid_argument(who + "slo.p99_max_ms must be > 0");
  if (!(o.slo.success_ratio_min >= 0 && o.slo.success_ratio_min <= 1)) {
    throw std::invalid_argument(who + "slo.success_ratio_min must be in [0, 1]");
  }
  if (!(o.slo.shed_ratio_max >= 0 && o.slo.shed_ratio_max <= 1)) {
    throw std::invalid_argument(who + "slo.shed_ratio_max must be in [0, 1]");
  }
  for (const StepSignal& s : o.signals) {
    if (s.name.empty() || s.failure_mode.empty()) throw std::invalid_argument(who + "a signal has no name or failure mode");
    if (!std::isfinite(s.limit)) throw std::invalid_argument(who + "signal '" + s.name + "' has no finite limit");
  }
}

// Judges one step whose judged window is the whole seconds [first, last].
StepResult JudgeStep(const metrics::LoadTimeline& timeline, const StepAnalysisOptions& o, int index, double rate,
                     std::int64_t first, std::int64_t last) {
  StepResult step;
  step.index = index;
  step.rate = rate;
  step.from_seconds = static_cast<double>(first);
  step.to_seconds = static_cast<double>(last + 1);
  metrics::LatencyHistogram latency;
  std::uint64_t generator_failed = 0;
  for (std::int64_t s = first; s <= last && s < timeline.size(); ++s) {
    const metrics::SecondBucket& b = timeline.seconds()[static_cast<std::size_t>(s)];
    step.offered += b.offered;
    step.ok += b.ok;
    step.failed += b.failed + b.shed;
    generator_failed += b.generator_failed;
    for (const auto& [code, n] : b.failed_by_code) {
      if (n == 0 || IsGeneratorSideCode(code)) continue;
      step.failures_by_code[code] += n;
      if (o.shed_statuses.count(code) > 0) step.shed_responses += n;
      if (code == kCodeTransportError) step.connection_resets += n;
    }
    latency.Merge(o.p99_of_ok_calls ? b.ok_latency : b.latency);
  }
  const double seconds = step.to_seconds - step.from_seconds;
  step.measured_rate = static_cast<double>(step.offered) / seconds;
  step.goodput = static_cast<double>(step.ok) / seconds;
  step.p99_ms = latency.empty() ? kNaN : static_cast<double>(latency.ValueAtPercentile(99)) / 1e6;
  const std::uint64_t judged = step.offered > generator_failed ? step.offered - generator_failed : 0;
  step.success_ratio = judged == 0 ? kNaN : static_cast<double>(step.ok) / static_cast<double>(judged);
  step.shed_ratio = judged == 0 ? kNaN : static_cast<double>(step.shed_responses) / static_cast<double>(judged);

  for (const StepSignal& signal : o.signals) {
    double max = kNaN;
    for (const MetricSample& sample : signal.samples) {
      const double at = static_cast<double>(sample.offset_ns) / 1e9;
      if (at < step.from_seconds || at >= step.to_seconds) continue;
      max = std::isnan(max) ? sample.value : std::max(max, sample.value);
    }
    step.signal_max.emplace_back(signal.name, max);
    if (!std::isnan(max) && max > signal.limit) {
      step.violations.push_back(signal.name + " reached " + Num(max) + " > " + Num(signal.limit));
      AddMode(step.failure_modes, signal.failure_mode);
    }
  }

  const StepSlo& slo = o.slo;
  std::vector<std::string> modes{};
  if (judged == 0) {
    if (rate > 0) {
      step.violations.insert(step.violations.begin(), "nothing was offered in the judged window (did the run end early?)");
      modes.push_back("not-run");
    }
  } else {
    if (!std::isnan(step.p99_ms) && step.p99_ms > slo.p99_max_ms) {
      step.violations.push_back("p99 " + Num(step.p99_ms) + " ms > " + Num(slo.p99_max_ms) + " ms");
      modes.push_back("latency");
    }
    if (step.shed_ratio > slo.shed_ratio_max) {
      step.violations.push_back("shed ratio " + Num(step.shed_ratio) + " > " + Num(slo.shed_ratio_max));
      AddMode(modes, "shedding");
    }
    if (step.success_ratio < slo.success_ratio_min) {
      step.violations.push_back("success ratio " + Fixed(step.success_ratio, 4) + " < " + Num(slo.success_ratio_min));
      const std::uint64_t other = step.failed - std::min(step.failed, step.shed_responses + step.connection_resets);
      if (step.shed_responses > 0) AddMode(modes, "shedding");
      if (other > 0) AddMode(modes, "errors");
      if (step.connection_resets > 0) AddMode(modes, "connection-resets");
    }
  }
  for (const std::string& mode : step.failure_modes) AddMode(modes, mode);  // the signals' modes last
  step.failure_modes = std::move(modes);
  step.held = step.violations.empty();
  return step;
}

std::string Rate(double rate) { return Num(rate) + "/s"; }

}  // namespace

BreakpointReport AnalyzeSteps(const metrics::LoadTimeline& timeline, const load::RateProfile& profile,
                              const StepAnalysisOptions& options, const metrics::GeneratorHealth* health) {
  Validate(options);
  BreakpointReport report;
  report.stage = options.stage;
  report.slo = options.slo;
  if (health != nullptr) {
    report.generator_limited = health->generator_limited;
    report.generator_reason = health->reason;
  }
  double start = 0;
  int index = 0;
  bool seen = false, ended = false;
  for (const load::StageSpec& stage : profile.stages()) {
    const double end = start + stage.duration_seconds;
    if (stage.name == options.stage) {
      if (ended) {
        throw std::invalid_argument("step analysis: stage '" + options.stage +
                                    "' appears twice in the profile, apart (name each steps stage once)");
      }
      seen = true;
      const double from = start + options.transition_seconds;
      const auto first = static_cast<std::int64_t>(std::ceil(from - kEpsilon));
      const auto last = static_cast<std::int64_t>(std::floor(end + kEpsilon)) - 1;
      if (last < first) {
        throw std::invalid_argument("step analysis: step " + std::to_string(index) + " of stage '" + options.stage +
                                    "' runs " + Num(start) + ".." + Num(end) + " s: after a transition of " +
                                    Num(options.transition_seconds) +
                                    " s no whole second is left to judge (hold each step longer)");
      }
      report.steps.push_back(JudgeStep(timeline, options, index++, stage.rate_from, first, last));
    } else if (seen) {
      ended = true;
    }
    start = end;
  }
  if (!seen) throw std::invalid_argument("step analysis: the profile has no stage named '" + options.stage + "'");

  for (const StepResult& step : report.steps) {
    if (report.first_failed < 0) {
      if (step.held) {
        report.last_held = step.index;
      } else {
        report.first_failed = step.index;
        report.failure_modes = step.failure_modes;
      }
    } else if (step.held) {
      report.held_after_failure.push_back(step.index);
    }
  }
  return report;
}

std::string BreakpointSummary(const BreakpointReport& r) {
  std::string out{};
  if (r.steps.empty()) return "breakpoint: stage '" + r.stage + "' has no step";
  if (!r.found()) {
    out = "no breakpoint: every step of '" + r.stage + "' held, up to " + Rate(r.steps.back().rate) +
          " (raise the top rate to find it)";
  } else {
    const StepResult& bad = r.steps[static_cast<std::size_t>(r.first_failed)];
    out = "breakpoint: ";
    out += r.last_held >= 0 ? "held up to " + Rate(r.steps[static_cast<std::size_t>(r.last_held)].rate) + "; first failed at "
                            : "already the first step failed, at ";
    out += Rate(bad.rate) + " (" + Join(bad.failure_modes, ", ") + ": " + Join(bad.violations, "; ") + ")";
    if (!r.held_after_failure.empty()) {
      std::vector<std::string> rates{};
      for (int i : r.held_after_failure) rates.push_back(Rate(r.steps[static_cast<std::size_t>(i)].rate));
      out += "; held again at " + Join(rates, ", ");
    }
  }
  if (r.generator_limited) out += " [generator-limited: " + r.generator_reason + "]";
  return out;
}

std::string FormatBreakpointText(const BreakpointReport& r) {
  std::string out = BreakpointSummary(r) + "\n";
  out += "SLO per step: p99 <= " + Num(r.slo.p99_max_ms) + " ms, success ratio >= " + Num(r.slo.success_ratio_min) +
         ", shed ratio <= " + Num(r.slo.shed_ratio_max) + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-4s %10s %10s %10s %10s %8s %8s %7s %-5s %s\n", "step", "offered/s", "measured/s",
                "goodput/s", "p99_ms", "success", "shed", "resets", "held", "failure modes");
  out += line;
  for (const StepResult& s : r.steps) {
    std::snprintf(line, sizeof line, "%-4d %10s %10s %10s %10s %8s %8s %7llu %-5s %s\n", s.index, Num(s.rate).c_str(),
                  Num(s.measured_rate).c_str(), Num(s.goodput).c_str(), Num(s.p99_ms).c_str(),
                  Fixed(s.success_ratio, 4).c_str(), Fixed(s.shed_ratio, 4).c_str(),
                  static_cast<unsigned long long>(s.connection_resets), s.held ? "yes" : "no",
                  Join(s.failure_modes, ",").c_str());
    out += line;
  }
  std::vector<std::string> curve{};
  for (const StepResult& s : r.steps) curve.push_back(Num(s.rate) + " -> " + Num(s.goodput));
  out += "goodput vs offered (/s): " + Join(curve, ", ") + "\n";
  return out;
}

std::string FormatBreakpointCsv(const BreakpointReport& r) {
  std::string out =
      "step,rate,from_s,to_s,offered,ok,failed,shed_responses,connection_resets,measured_rate,goodput,p99_ms,"
      "success_ratio,shed_ratio,held,failure_modes";
  if (!r.steps.empty()) {
    for (const auto& [name, value] : r.steps.front().signal_max) out += ",max_" + name;
  }
  out += "\n";
  for (const StepResult& s : r.steps) {
    out += std::to_string(s.index) + "," + Num(s.rate) + "," + Num(s.from_seconds) + "," + Num(s.to_seconds) + "," +
           std::to_string(s.offered) + "," + std::to_string(s.ok) + "," + std::to_string(s.failed) + "," +
           std::to_string(s.shed_responses) + "," + std::to_string(s.connection_resets) + "," + Num(s.measured_rate) +
           "," + Num(s.goodput) + "," + Fixed(s.p99_ms, 3) + "," + Fixed(s.success_ratio, 4) + "," +
           Fixed(s.shed_ratio, 4) + "," + (s.held ? "true" : "false") + "," + Join(s.failure_modes, ";");
    for (const auto& [name, value] : s.signal_max) out += "," + Num(value);
    out += "\n";
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> BreakpointProperties(const BreakpointReport& r,
                                                                      std::string_view prefix) {
  const std::string p(prefix);
  std::vector<std::pair<std::string, std::string>> out{};
  auto rate_of = [&](int index) {
    return index < 0 ? std::string("none") : Num(r.steps[static_cast<std::size_t>(index)].rate);
  };
  out.emplace_back(p + "_found", r.found() ? "true" : "false");
  out.emplace_back(p + "_last_held_rate", rate_of(r.last_held));
  out.emplace_back(p + "_first_failed_rate", rate_of(r.first_failed));
  out.emplace_back(p + "_failure_mode", r.found() ? Join(r.failure_modes, "+") : "none");
  out.emplace_back(p + "_steps", std::to_string(r.steps.size()));
  std::vector<std::string> curve{};
  for (const StepResult& s : r.steps) curve.push_back(Num(s.rate) + ":" + Num(s.goodput));
  out.emplace_back(p + "_curve", Join(curve, ","));
  out.emplace_back(p + "_generator_limited", r.generator_limited ? "true" : "false");
  for (const StepResult& s : r.steps) {
    const std::string k = p + "_step" + std::to_string(s.index) + "_";
    out.emplace_back(k + "rate", Num(s.rate));
    out.emplace_back(k + "goodput", Num(s.goodput));
    out.emplace_back(k + "p99_ms", Fixed(s.p99_ms, 3));
    out.emplace_back(k + "success_ratio", Fixed(s.success_ratio, 4));
    out.emplace_back(k + "shed_ratio", Fixed(s.shed_ratio, 4));
    out.emplace_back(k + "held", s.held ? "true" : "false");
  }
  return out;
}

BisectionResult BisectBreakpoint(const BisectionOptions& o, const std::function<bool(double rate)>& held) {
  if (!(o.last_good_rate >= 0) || !(o.first_bad_rate > o.last_good_rate) || !std::isfinite(o.first_bad_rate)) {
    throw std::invalid_argument("breakpoint bisection: need 0 <= last_good_rate < first_bad_rate (got " +
                                Num(o.last_good_rate) + " and " + Num(o.first_bad_rate) + ")");
  }
  if (!(o.resolution > 0)) throw std::invalid_argument("breakpoint bisection: resolution must be > 0 /s");
  if (o.max_iterations < 1 || o.max_iterations > 64) {
    throw std::invalid_argument("breakpoint bisection: max_iterations must be in 1..64");
  }
  if (!held) throw std::invalid_argument("breakpoint bisection: no trial function");
  BisectionResult result{.last_good_rate = o.last_good_rate, .first_bad_rate = o.first_bad_rate};
  for (int i = 0; i < o.max_iterations && result.first_bad_rate - result.last_good_rate > o.resolution; ++i) {
    const double mid = (result.last_good_rate + result.first_bad_rate) / 2;
    const bool ok = held(mid);
    result.trials.push_back({mid, ok});
    (ok ? result.last_good_rate : result.first_bad_rate) = mid;
  }
  result.converged = result.first_bad_rate - result.last_good_rate <= o.resolution;
  return result;
}

std::string FormatBisectionText(const BisectionResult& r, double resolution) {
  std::string text = "refined (bisection, resolution " + Num(resolution) + "/s): held up to " + Num(r.last_good_rate) +
                     "/s; first failed at " + Num(r.first_bad_rate) + "/s (" + std::to_string(r.trials.size()) +
                     (r.trials.size() == 1 ? " trial" : " trials");
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    text += (i == 0 ? ": " : ", ") + Num(r.trials[i].rate) + "/s " + (r.trials[i].held ? "held" : "failed");
  }
  text += r.converged ? ")\n" : "; did not converge: the trial budget ran out)\n";
  return text;
}

std::vector<std::pair<std::string, std::string>> BisectionProperties(const BisectionResult& r, double resolution,
                                                                     std::string_view prefix) {
  const std::string p = std::string(prefix) + "_bisect";
  return {{p + "_last_held_rate", Num(r.last_good_rate)},
          {p + "_first_failed_rate", Num(r.first_bad_rate)},
          {p + "_trials", std::to_string(r.trials.size())},
          {p + "_converged", r.converged ? "true" : "false"},
          {p + "_resolution", Num(resolution)}};
}

scenario::OutcomeCurve GoodputCurve(const BreakpointReport& report, std::string name) {
  scenario::OutcomeCurve curve{.name = std::move(name),
                               .title = "goodput against offered rate (" + report.stage + " steps)",
                               .x_label = "offered /s",
                               .y_label = "goodput /s",
                               .points = {},
                               .identity_line = true,
                               .x_marks = {}};
  for (const StepResult& step : report.steps) curve.points.emplace_back(step.rate, step.goodput);
  const auto rate_of = [&](int index) { return report.steps[static_cast<std::size_t>(index)].rate; };
  if (report.last_held >= 0) curve.x_marks.emplace_back(rate_of(report.last_held), "last step held");
  if (report.first_failed >= 0) curve.x_marks.emplace_back(rate_of(report.first_failed), "first step failed");
  return curve;
}

}  // namespace aftershock::stress
