// A small parser of the Prometheus text exposition format (version 0.0.4), and exact selectors over
// its samples: what MetricSampler reads from a target's /metrics endpoint.
//
// Comment lines (# HELP, # TYPE, anything after '#') and blank lines are skipped; a sample line is
// `name{label="value",...} value [timestamp]`, with the value a float, +Inf, -Inf or NaN and label
// values escaped as \\, \" and \n. A malformed line is reported (line number and why) and skipped; the
// rest of the text is still read.
//
//   PromText text = ParsePrometheusText("pool_in_use{pool=\"db\"} 7\npool_size{pool=\"db\"} 10\n");
//   MetricSelector in_use = ParseMetricSelector("pool_in_use{pool=\"db\"}");
//   std::optional<double> v = in_use.Find(text.samples);  // 7
//
// A selector matches a sample whose name is the same and whose label set is exactly the selector's
// (same names, same values, no more, no fewer): `pool_in_use` alone does not match
// `pool_in_use{pool="db"}`, so a figure can never silently come from the wrong series.
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_PROMETHEUS_TEXT_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_PROMETHEUS_TEXT_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aftershock::stress {

// Labels sorted by name (the parser and ParseMetricSelector sort them).
using PromLabels = std::vector<std::pair<std::string, std::string>>;

struct PromSample {
  std::string name{};
  PromLabels labels{};
  double value = 0;
};

struct PromText {
  std::vector<PromSample> samples{};
  std::vector<std::string> errors{};  // "line 3: ...", one per malformed line
};

PromText ParsePrometheusText(std::string_view text);

struct MetricSelector {
  std::string name{};
  PromLabels labels{};  // sorted by name
  std::string text{};   // canonical: name{a="x",b="y"} (just name without labels)

  bool Matches(const PromSample& sample) const;
  // The value of the first matching sample, if any.
  std::optional<double> Find(const std::vector<PromSample>& samples) const;
};

// Parses `name` or `name{label="value",...}`. Throws std::invalid_argument naming the selector and
// what is wrong (bad metric or label name, unterminated value, a label given twice).
MetricSelector ParseMetricSelector(std::string_view text);

}  // namespace aftershock::stress

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_PROMETHEUS_TEXT_H_
