// StepAnalysis: the breakpoint report of a stepped profile. Each step of the profile's steps stage is
// judged against the scenario's SLOs; the report names the breakpoint (the last step that held, the
// first that did not, the failure mode seen) and the curve of goodput against offered rate.
//
// Finding the breakpoint is the purpose of the profile, not a failure: the report is figures and text
// (a table, CSV, JUnit properties), never a gate. Gates judge the contracts (stress_gates.h).
//
// Input is the run's per-second LoadTimeline (bucketed by intended second) and the RateProfile whose
// expanded stages give each step's time range and rate: a kSteps stage expands into constant stages
// that share its name. Each step's first `transition_seconds` are skipped (the target settles into the
// new rate); the whole seconds left inside the step are judged. Per step: offered rate (the profile's
// and the measured), goodput (ok/s), p99 (of successful calls by default, or of every completed call),
// success ratio, shed ratio (responses with a shed status, e.g. 429/503, among the offered), failures
// by code, connection resets (kCodeTransportError) and, optionally, the largest value of each sampled
// target signal (e.g. the pool's in_use/size from MetricSampler).
//
// A step holds when p99 <= p99_max_ms, success ratio >= success_ratio_min, shed ratio <=
// shed_ratio_max and every signal stays within its limit. The failure modes of a step that did not
// hold, in this order: "latency" (p99 over), "shedding" (shed ratio over, or shed responses among the
// failures that broke the success ratio), "errors" (other failed calls: 5xx, deadlines, the generator's
// in-flight ceiling), "connection-resets" (transport errors), and each signal's own mode (default
// "pool-saturation").
//
//   StepAnalysisOptions options{.stage = "breakpoint", .transition_seconds = 2,
//                               .slo = {.p99_max_ms = 25, .success_ratio_min = 0.999, .shed_ratio_max = 0.01}};
//   BreakpointReport report = AnalyzeSteps(result.timeline, profile, options, &result.health);
//   std::cout << FormatBreakpointText(report);
//   for (const auto& [key, value] : BreakpointProperties(report)) RecordProperty(key, value);
//
// Optional adaptive mode: BisectBreakpoint searches between the last good and the first bad rate by
// running one step per trial (the caller's function), to a stated resolution in bounded iterations.
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_STEP_ANALYSIS_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_STEP_ANALYSIS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/common/call_code.h"
#include "framework/load/rate_profile.h"
#include "framework/scenario/scenario_outcome.h"
#include "framework/metrics/generator_health.h"
#include "framework/metrics/load_timeline.h"
#include "framework/stress/metric_sampler.h"

namespace aftershock::stress {

struct StepSlo {
  double p99_max_ms = 25;          // the seed's normal zone: p99 <= 25 ms
  double success_ratio_min = 0.999;
  double shed_ratio_max = 0.01;
};

// A sampled target signal judged per step: its largest sample inside the step's judged window must
// stay <= limit.
struct StepSignal {
  std::string name{};                   // e.g. "pool_in_use_ratio"
  std::vector<MetricSample> samples{};  // offsets since the run's start (the timeline's clock)
  double limit = 0;
  std::string failure_mode = "pool-saturation";
};

struct StepAnalysisOptions {
  std::string stage{};             // the steps stage's name; required
  double transition_seconds = 1;   // skipped at each step's start; >= 0
  StepSlo slo{};
  std::set<int> shed_statuses = {429, 503};
  bool p99_of_ok_calls = true;     // false: p99 of every completed call (shed responses included)
  std::vector<StepSignal> signals{};
};

struct StepResult {
  int index = 0;                // 0-based, in profile order
  double rate = 0;              // the profile's offered rate, /s
  double from_seconds = 0;      // the judged window [from, to), seconds since the run's start
  double to_seconds = 0;
  std::uint64_t offered = 0, ok = 0, failed = 0;
  std::uint64_t shed_responses = 0;     // failed calls with a shed status
  std::uint64_t connection_resets = 0;  // kCodeTransportError
  double measured_rate = 0;     // offered / judged seconds
  double goodput = 0;           // ok / judged seconds
  double p99_ms = 0;            // as judged (ok calls, or all: StepAnalysisOptions::p99_of_ok_calls)
  double success_ratio = 0;     // ok / offered
  double shed_ratio = 0;        // shed_responses / offered
  std::map<CallCode, std::uint64_t> failures_by_code{};
  std::vector<std::pair<std::string, double>> signal_max{};  // per signal: largest sample (NaN: none)
  bool held = false;
  std::vector<std::string> failure_modes{};  // empty when held
  std::vector<std::string> violations{};     // "p99 31.2 ms > 25 ms", ...
};

struct BreakpointReport {
  std::string stage{};
  StepSlo slo{};
  std::vector<StepResult> steps{};
  int last_held = -1;     // index of the last step that held before the first that did not; -1: none
  int first_failed = -1;  // index of the first step that did not hold; -1: every step held
  std::vector<std::string> failure_modes{};  // of the first failed step
  std::vector<int> held_after_failure{};     // steps that held again after first_failed (noise or recovery)
  bool generator_limited = false;          // the run's GeneratorHealth said so: figures may be the generator's
  std::string generator_reason{};

  bool found() const { return first_failed >= 0; }
};

// Throws std::invalid_argument when the stage is not in the profile, a step leaves no whole second
// to judge after its transition, or an option is out of range.
BreakpointReport AnalyzeSteps(const metrics::LoadTimeline& timeline, const load::RateProfile& profile,
                              const StepAnalysisOptions& options, const metrics::GeneratorHealth* health = nullptr);

// One line naming the breakpoint: "breakpoint: held up to 200/s; first failed at 250/s (latency,
// shedding)" or "no breakpoint: every step held up to 300/s".
std::string BreakpointSummary(const BreakpointReport& report);
// The summary, a table (one row per step) and the goodput-vs-offered curve.
std::string FormatBreakpointText(const BreakpointReport& report);
// Header + one row per step: step,rate,from_s,to_s,offered,ok,failed,shed_responses,connection_resets,
// measured_rate,goodput,p99_ms,success_ratio,shed_ratio,held,failure_modes, then max_<signal> columns.
std::string FormatBreakpointCsv(const BreakpointReport& report);
// key=value pairs for JUnit properties: <prefix>_found, _last_held_rate, _first_failed_rate,
// _failure_mode, _steps, _curve ("rate:goodput,..."), _generator_limited, then per step
// <prefix>_step<i>_{rate,goodput,p99_ms,success_ratio,shed_ratio,held}.
std::vector<std::pair<std::string, std::string>> BreakpointProperties(const BreakpointReport& report,
                                                                      std::string_view prefix = "breakpoint");
// The goodput-against-offered-rate curve for the report sinks (ScenarioOutcome::curves, drawn on
// report.html): one point per step (rate, goodput), the line y = x, and marks at the last step that
// held and the first that did not. Hand it over with fixtures' JudgeOptions::suite_curves.
scenario::OutcomeCurve GoodputCurve(const BreakpointReport& report, std::string name = "breakpoint-goodput");

// The adaptive mode: between last_good_rate (held) and first_bad_rate (did not), runs `held(rate)` at
// the midpoint and narrows, until first_bad - last_good <= resolution or max_iterations trials.
struct BisectionOptions {
  double last_good_rate = 0;
  double first_bad_rate = 0;
  double resolution = 0;   // /s, > 0
  int max_iterations = 8;  // 1..64
};
struct BisectionTrial {
  double rate = 0;
  bool held = false;
};
struct BisectionResult {
  double last_good_rate = 0;
  double first_bad_rate = 0;
  std::vector<BisectionTrial> trials{};
  bool converged = false;  // the interval is within the resolution (else max_iterations ran out)
};
// Throws std::invalid_argument unless 0 <= last_good < first_bad, resolution > 0 and max_iterations
// is in range.
BisectionResult BisectBreakpoint(const BisectionOptions& options, const std::function<bool(double rate)>& held);
// "refined (bisection, resolution 10/s): held up to 202.5/s; first failed at 213.8/s (3 trials:
// 202.5/s held, 225/s ..."), one line ending in '\n'; "did not converge" when max_iterations ran out.
std::string FormatBisectionText(const BisectionResult& result, double resolution);
// <prefix>_bisect_last_held_rate, _first_failed_rate, _trials, _converged, _resolution.
std::vector<std::pair<std::string, std::string>> BisectionProperties(const BisectionResult& result, double resolution,
                                                                     std::string_view prefix = "breakpoint");

}  // namespace aftershock::stress

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_STEP_ANALYSIS_H_
