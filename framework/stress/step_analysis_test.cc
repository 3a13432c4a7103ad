#include "framework/stress/step_analysis.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

namespace aftershock::stress {
namespace {

// What one second of a synthetic run saw.
struct Second {
  std::uint64_t ok = 0;
  double ok_ms = 5;
  std::map<CallCode, std::uint64_t> failed{};
  std::uint64_t ceiling_shed = 0;
};

// A timeline with `seconds[i]` in run second i; offered = ok + failures + ceiling sheds.
metrics::LoadTimeline MakeTimeline(const std::vector<Second>& seconds) {
  metrics::LoadTimeline timeline;
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    metrics::SecondBucket& b = timeline.At(static_cast<std::int64_t>(i));
    const Second& s = seconds[i];
    b.ok = s.ok;
    b.ok_latency.Record(static_cast<std::int64_t>(s.ok_ms * 1e6), s.ok);
    b.latency.Record(static_cast<std::int64_t>(s.ok_ms * 1e6), s.ok);
    b.offered = s.ok + s.ceiling_shed;
    for (const auto& [code, n] : s.failed) {
      b.failed += n;
      b.offered += n;
      b.failed_by_code[code] += n;
      b.latency.Record(1'000'000, n);
    }
    b.shed = s.ceiling_shed;
    if (s.ceiling_shed > 0) b.failed_by_code[kCodeShed] += s.ceiling_shed;
  }
  return timeline;
}

// warm-up 2 s at 50/s, then steps 100, 200, 300, 400 /s of 4 s each: step i covers [2 + 4i, 6 + 4i).
load::RateProfile Profile() {
  return load::RateProfile::FromStages({{.name = "warm-up", .rate_from = 50, .duration_seconds = 2},
                                        {.name = "steps", .kind = load::StageKind::kSteps, .rate_from = 100,
                                         .rate_to = 400, .duration_seconds = 16, .steps = 4}});
}

// Healthy seconds for the profile, each step's first second (the transition) made terrible.
std::vector<Second> Healthy() {
  std::vector<Second> s(18);
  s[0].ok = s[1].ok = 50;
  for (int step = 0; step < 4; ++step) {
    for (int k = 0; k < 4; ++k) {
      Second& sec = s[static_cast<std::size_t>(2 + 4 * step + k)];
      sec.ok = static_cast<std::uint64_t>(100 * (step + 1));
      if (k == 0) sec.ok_ms = 900;  // the transition: skipped
    }
  }
  return s;
}

StepAnalysisOptions TestStepOptions() {
  return {.stage = "steps", .transition_seconds = 1, .slo = {.p99_max_ms = 25, .success_ratio_min = 0.99, .shed_ratio_max = 0.05}};
}

TEST(StepAnalysisTest, EveryStepHoldsOnAHealthyRunAndTheTransitionIsSkipped) {
  const BreakpointReport r = AnalyzeSteps(MakeTimeline(Healthy()), Profile(), TestStepOptions());
  ASSERT_EQ(r.steps.size(), 4u);
  for (const StepResult& s : r.steps) {
    EXPECT_TRUE(s.held) << s.index << ": " << (s.violations.empty() ? "" : s.violations.front());
    EXPECT_EQ(s.from_seconds, 3 + 4 * s.index);
    EXPECT_EQ(s.to_seconds, 6 + 4 * s.index);
    EXPECT_DOUBLE_EQ(s.goodput, s.rate);
    EXPECT_NEAR(s.p99_ms, 5, 0.05);
  }
  EXPECT_FALSE(r.found());
  EXPECT_EQ(r.last_held, 3);
  EXPECT_EQ(BreakpointSummary(r), "no breakpoint: every step of 'steps' held, up to 400/s (raise the top rate to find it)");
}

TEST(StepAnalysisTest, NamesTheBreakpointAndItsFailureModes) {
  std::vector<Second> s = Healthy();
  for (int k = 1; k < 4; ++k) {
    s[static_cast<std::size_t>(10 + k)] = {.ok = 200, .ok_ms = 40, .failed = {{429, 100}}};  // step 2 (300/s)
    s[static_cast<std::size_t>(14 + k)] = {.ok = 150, .ok_ms = 4, .failed = {{503, 200}, {500, 30}, {kCodeTransportError, 20}}};
  }
  const BreakpointReport r = AnalyzeSteps(MakeTimeline(s), Profile(), TestStepOptions());
  ASSERT_TRUE(r.found());
  EXPECT_EQ(r.last_held, 1);
  EXPECT_EQ(r.first_failed, 2);
  EXPECT_EQ(r.failure_modes, (std::vector<std::string>{"latency", "shedding"}));
  const StepResult& step2 = r.steps[2];
  EXPECT_FALSE(step2.held);
  EXPECT_EQ(step2.shed_responses, 300u);
  EXPECT_NEAR(step2.shed_ratio, 1.0 / 3, 1e-9);
  EXPECT_NEAR(step2.goodput, 200, 1e-9);
  const StepResult& step3 = r.steps[3];
  EXPECT_EQ(step3.failure_modes, (std::vector<std::string>{"shedding", "errors", "connection-resets"}));
  EXPECT_EQ(step3.connection_resets, 60u);
  EXPECT_EQ(step3.failures_by_code.at(500), 90u);
  EXPECT_EQ(BreakpointSummary(r).rfind("breakpoint: held up to 200/s; first failed at 300/s (latency, shedding: p99 ", 0), 0u)
      << BreakpointSummary(r);

  const std::string text = FormatBreakpointText(r);
  EXPECT_NE(text.find("goodput vs offered (/s): 100 -> 100, 200 -> 200, 300 -> 200, 400 -> 150"), std::string::npos) << text;
  const std::string csv = FormatBreakpointCsv(r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "step,rate,from_s,to_s,offered,ok,failed,shed_responses,connection_resets,measured_rate,goodput,p99_ms,"
            "success_ratio,shed_ratio,held,failure_modes");
  EXPECT_NE(csv.find("\n2,300,11,14,900,600,300,300,0,300,200,"), std::string::npos) << csv;
  std::map<std::string, std::string> props;
  for (const auto& [k, v] : BreakpointProperties(r)) props[k] = v;
  EXPECT_EQ(props["breakpoint_found"], "true");
  EXPECT_EQ(props["breakpoint_last_held_rate"], "200");
  EXPECT_EQ(props["breakpoint_first_failed_rate"], "300");
  EXPECT_EQ(props["breakpoint_failure_mode"], "latency+shedding");
  EXPECT_EQ(props["breakpoint_curve"], "100:100,200:200,300:200,400:150");
  EXPECT_EQ(props["breakpoint_step3_held"], "false");

  const scenario::OutcomeCurve curve = GoodputCurve(r);
  EXPECT_EQ(curve.name, "breakpoint-goodput");
  EXPECT_EQ(curve.points, (std::vector<std::pair<double, double>>{{100, 100}, {200, 200}, {300, 200}, {400, 150}}));
  EXPECT_TRUE(curve.identity_line);
  EXPECT_EQ(curve.x_marks,
            (std::vector<std::pair<double, std::string>>{{200, "last step held"}, {300, "first step failed"}}));
}

TEST(StepAnalysisTest, ASampledSignalOverItsLimitIsPoolSaturation) {
  StepAnalysisOptions o = TestStepOptions();
  // The ratio climbs to 0.9 in step 1's judged window (7..10 s); a spike during its transition is ignored.
  o.signals.push_back({.name = "pool_ratio",
                       .samples = {{3'500'000'000, 0.2}, {6'200'000'000, 0.95}, {8'000'000'000, 0.9}},
                       .limit = 0.8});
  const BreakpointReport r = AnalyzeSteps(MakeTimeline(Healthy()), Profile(), o);
  ASSERT_TRUE(r.found());
  EXPECT_EQ(r.first_failed, 1);
  EXPECT_EQ(r.failure_modes, (std::vector<std::string>{"pool-saturation"}));
  EXPECT_DOUBLE_EQ(r.steps[1].signal_max[0].second, 0.9);
  EXPECT_TRUE(r.steps[0].held);
  EXPECT_EQ(r.held_after_failure, (std::vector<int>{2, 3}));  // no sample there: nothing to judge, held
  EXPECT_NE(FormatBreakpointCsv(r).find(",max_pool_ratio\n"), std::string::npos);
}

TEST(StepAnalysisTest, TheGeneratorsCeilingCountsAsErrorsAndTheFirstStepCanFail) {
  std::vector<Second> s = Healthy();
  for (int k = 1; k < 4; ++k) s[static_cast<std::size_t>(2 + k)] = {.ok = 50, .ok_ms = 3, .ceiling_shed = 50};
  const BreakpointReport r = AnalyzeSteps(MakeTimeline(s), Profile(), TestStepOptions());
  EXPECT_EQ(r.first_failed, 0);
  EXPECT_EQ(r.last_held, -1);
  EXPECT_EQ(r.failure_modes, (std::vector<std::string>{"errors"}));
  EXPECT_EQ(r.steps[0].failures_by_code.at(kCodeShed), 150u);
  EXPECT_EQ(BreakpointSummary(r).rfind("breakpoint: already the first step failed, at 100/s (errors", 0), 0u)
      << BreakpointSummary(r);
  std::map<std::string, std::string> props;
  for (const auto& [k, v] : BreakpointProperties(r, "bp")) props[k] = v;
  EXPECT_EQ(props["bp_last_held_rate"], "none");
}

TEST(StepAnalysisTest, BadInputIsAnErrorNamingIt) {
  const metrics::LoadTimeline t = MakeTimeline(Healthy());
  auto message = [&](StepAnalysisOptions o) -> std::string {
    try {
      AnalyzeSteps(t, Profile(), o);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  StepAnalysisOptions o = TestStepOptions();
  o.stage = "plateau";
  EXPECT_NE(message(o).find("no stage named 'plateau'"), std::string::npos);
  o = TestStepOptions();
  o.transition_seconds = 3.5;
  EXPECT_NE(message(o).find("no whole second is left to judge"), std::string::npos) << message(o);
  o = TestStepOptions();
  o.slo.success_ratio_min = 1.5;
  EXPECT_NE(message(o).find("success_ratio_min"), std::string::npos);
  o = TestStepOptions();
  o.stage = "";
  EXPECT_NE(message(o).find("no stage named"), std::string::npos);
}

TEST(BisectBreakpointTest, NarrowsToTheResolutionWithinItsBound) {
  int trials = 0;
  const BisectionResult r = BisectBreakpoint({.last_good_rate = 200, .first_bad_rate = 300, .resolution = 5},
                                             [&](double rate) {
                                               ++trials;
                                               return rate < 237;
                                             });
  EXPECT_TRUE(r.converged);
  EXPECT_LE(r.first_bad_rate - r.last_good_rate, 5);
  EXPECT_LT(r.last_good_rate, 237);
  EXPECT_GE(r.first_bad_rate, 237);
  EXPECT_EQ(trials, 5);  // 100 -> 50 -> 25 -> 12.5 -> 6.25 -> 3.125
  EXPECT_EQ(r.trials.size(), 5u);
  EXPECT_EQ(r.trials[0].rate, 250);
  EXPECT_FALSE(r.trials[0].held);
}

TEST(BisectBreakpointTest, TheRefinedBreakpointIsOneLineAndProperties) {
  BisectionResult r{.last_good_rate = 200, .first_bad_rate = 212.5,
                    .trials = {{250, false}, {225, false}, {212.5, false}}, .converged = false};
  EXPECT_EQ(FormatBisectionText(r, 5),
            "refined (bisection, resolution 5/s): held up to 200/s; first failed at 212.5/s (3 trials: 250/s failed, "
            "225/s failed, 212.5/s failed; did not converge: the trial budget ran out)\n");
  r.trials = {{206.25, true}};
  r.last_good_rate = 206.25;
  r.converged = true;
  EXPECT_EQ(FormatBisectionText(r, 10),
            "refined (bisection, resolution 10/s): held up to 206.25/s; first failed at 212.5/s (1 trial: 206.25/s held)\n");
  const auto props = BisectionProperties(r, 10);
  ASSERT_EQ(props.size(), 5u);
  EXPECT_EQ(props[0], (std::pair<std::string, std::string>{"breakpoint_bisect_last_held_rate", "206.25"}));
  EXPECT_EQ(props[3], (std::pair<std::string, std::string>{"breakpoint_bisect_converged", "true"}));
}

TEST(BisectBreakpointTest, StopsAtMaxIterationsAndSaysItDidNotConverge) {
  const BisectionResult r = BisectBreakpoint(
      {.last_good_rate = 0, .first_bad_rate = 1000, .resolution = 1, .max_iterations = 3}, [](double) { return true; });
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.trials.size(), 3u);
  EXPECT_EQ(r.last_good_rate, 875);
  EXPECT_THROW(BisectBreakpoint({.last_good_rate = 5, .first_bad_rate = 5, .resolution = 1}, [](double) { return true; }),
               std::invalid_argument);
  EXPECT_THROW(BisectBreakpoint({.last_good_rate = 1, .first_bad_rate = 5, .resolution = 0}, [](double) { return true; }),
               std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::stress
