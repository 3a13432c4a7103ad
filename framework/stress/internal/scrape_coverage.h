// JudgeScrapeCoverage: the rule every gate that reads MetricSampler samples follows. Too many polls
// without a sample in the window it judges (a failed scrape, an unparsable text, a missing selector)
// turn the gate red: its verdict would rest on whichever samples survived.
//
//   gates::GateResult r = ...;   // judged on the samples
//   JudgeScrapeCoverage(r, options.coverage, options.max_failed_poll_ratio, "the pool's gauges");
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_SCRAPE_COVERAGE_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_SCRAPE_COVERAGE_H_

#include <optional>
#include <string>

#include "framework/gates/gate_result.h"
#include "framework/stress/internal/format.h"
#include "framework/stress/metric_sampler.h"

namespace aftershock::stress::internal {

// Adds the coverage figures to `r` and, when more than `max_failed_ratio` of the polls failed (or
// there was none), makes it red naming the share and the last error; `r`'s own finding follows as
// "on the samples that came: ...". No coverage given: `r` is left as it is.
inline void JudgeScrapeCoverage(gates::GateResult& r, const std::optional<PollCoverage>& coverage,
                                double max_failed_ratio, const std::string& what) {
  if (!coverage) return;
  const PollCoverage& c = *coverage;
  r.figures.push_back({"scrape_polls", static_cast<double>(c.polls)});
  r.figures.push_back({"scrape_failed_polls", static_cast<double>(c.failed)});
  r.figures.push_back({"scrape_parse_errors", static_cast<double>(c.parse_errors)});
  r.Declare(gates::FigureDirection::kNeither, {"scrape_polls"})
      .Declare(gates::FigureDirection::kLowerIsBetter, {"scrape_failed_polls", "scrape_parse_errors"});
  if (c.FailedRatio() <= max_failed_ratio) return;
  const std::string share = c.polls == 0 ? "no poll of " + what + " ended in the window it judges"
                                         : std::to_string(c.failed) + " of " + std::to_string(c.polls) + " polls of " +
                                               what + " gave no sample (" +
                                               Num(100 * c.FailedRatio()) + " %" + " > " +
                                               Num(100 * max_failed_ratio) + " %" + " allowed)";
  r.message = share + (c.parse_errors > 0 ? ", " + std::to_string(c.parse_errors) + " malformed lines" : "") +
              (c.last_error.empty() ? "" : "; last error: " + c.last_error) +
              ": not seen, so not judged green; on the samples that came: " + r.message;
  r.passed = false;
  r.not_applicable = false;
}

}  // namespace aftershock::stress::internal

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_SCRAPE_COVERAGE_H_
