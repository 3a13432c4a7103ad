// Renders the shipped Prometheus/Alertmanager manifests (manifests/prometheus/) for a run.
//
// The shipped files carry the real SLO windows (a 5 m burn window, a 12 h `for:`), which no test can
// wait for. A time scale shrinks every time constant by the same factor while keeping every
// threshold, so a scaled run exercises the same rule logic in seconds:
//
//   std::string scaled = RenderRules(ReadFile("manifests/prometheus/rules.yaml"), 0.05);
//   // [5m] -> [15s], for: 5m -> for: 15s, for: 12h -> for: 36m; "> 0.01" unchanged
//   EvaluationIntervals iv = ChooseIntervals(ShortestRangeWindow(scaled));  // 3s / 3s
//
// rate() needs several samples inside its window, so a scaled run scrapes at most every quarter of
// the shortest window (kMinSamplesPerWindow); ChooseIntervals picks that and CheckWindows refuses
// a scale that would leave fewer samples.
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_RULE_RENDERING_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_RULE_RENDERING_H_

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace aftershock::alerting {

inline constexpr int kMinSamplesPerWindow = 4;

// Multiplies every range window ("[5m]", subquery "[30m:1m]") and every `for:` duration by
// `time_scale` (rounded to whole milliseconds), leaving all other text byte for byte. Throws
// std::invalid_argument for a non-positive or non-finite scale, a window that would round to zero,
// or a `for:` value that is not a duration.
std::string RenderRules(const std::string& rules_yaml, double time_scale);

// The shortest range window in a rules file; throws std::invalid_argument when there is none.
std::chrono::milliseconds ShortestRangeWindow(const std::string& rules_yaml);

struct EvaluationIntervals {
  std::chrono::milliseconds scrape;
  std::chrono::milliseconds evaluation;
};

// Scrape and evaluation interval for rules whose shortest window is `shortest_window`: a quarter
// of it, in whole seconds, clamped to [1 s, 15 s] (15 s is Prometheus' customary default, what an
// unscaled run gets).
EvaluationIntervals ChooseIntervals(std::chrono::milliseconds shortest_window);

// Throws std::invalid_argument when the shortest window holds fewer than kMinSamplesPerWindow
// scrapes at `intervals.scrape` (the scale is too small for the scrape interval).
void CheckWindows(std::chrono::milliseconds shortest_window, const EvaluationIntervals& intervals);

// Replaces every ${NAME} with values.at(NAME); throws std::invalid_argument naming any
// placeholder without a value. Values are inserted verbatim (quote them yourself: YamlQuote).
std::string RenderTemplate(const std::string& text, const std::map<std::string, std::string>& values);

// A single-quoted YAML scalar ('it''s').
std::string YamlQuote(const std::string& value);

struct PrometheusConfigValues {
  std::vector<std::string> scrape_targets;  // host:port
  std::string rule_file;                    // absolute path of the rendered rules
  std::string alertmanager_address;         // host:port
  EvaluationIntervals intervals;
};

// Fills manifests/prometheus/prometheus.yaml's placeholders.
std::string RenderPrometheusConfig(const std::string& template_yaml,
                                   const PrometheusConfigValues& values);

struct AlertmanagerConfigValues {
  std::string test_webhook_url{};
  std::string production_webhook_url{};
  // group_wait, group_interval, repeat_interval are multiplied by this, with a floor of 1 s.
  double time_scale = 1.0;
  // SEEDED MISCONFIGURATION (verdict tests only): the source="load-test" route delivers to the
  // production receiver. Throws std::invalid_argument when the template has no such route.
  bool misroute_test_alerts = false;
};

// Fills manifests/prometheus/alertmanager.yaml's placeholders and applies scale and misroute.
std::string RenderAlertmanagerConfig(const std::string& template_yaml,
                                     const AlertmanagerConfigValues& values);

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_RULE_RENDERING_H_
