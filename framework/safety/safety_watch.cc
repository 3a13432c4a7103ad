#include "framework/safety/safety_watch.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace aftershock::safety {
namespace {

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::chrono::milliseconds Ms(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000.0)));
}

std::string Prefix(const config::StopConditionSpec& spec) {
  return spec.source + ": stop condition '" + spec.name + "': ";
}

ConditionRule RuleOf(const config::StopConditionSpec& spec) {
  const std::optional<Comparator> comparator = ParseComparator(spec.comparator);
  if (!comparator) throw std::invalid_argument(Prefix(spec) + "'" + spec.comparator + "' is not a comparator");
  return ConditionRule{.name = spec.name, .comparator = *comparator, .threshold = spec.threshold,
                       .hold = Ms(spec.for_seconds), .breach_on_failure = spec.breach_on_failure};
}

}  // namespace

void SafetyWatch::Check() const {
  const std::vector<std::string>& builtin = RunnerSignalNames();
  for (const auto& [name, source] : signals) {
    if (std::find(builtin.begin(), builtin.end(), name) != builtin.end()) {
      throw std::invalid_argument("suite signal '" + name + "' has the name of a generator signal");
    }
    if (!source) throw std::invalid_argument("suite signal '" + name + "' has no reading function");
  }
  for (const config::StopConditionSpec& spec : conditions) {
    RuleOf(spec);
    if (spec.name == "operator-halt") {
      throw std::invalid_argument(Prefix(spec) + "the name is the operator halt's");
    }
    if (!spec.promql.empty()) {
      if (!prometheus) {
        throw std::invalid_argument(Prefix(spec) +
                                    "a PromQL condition, but the suite gives no Prometheus to evaluate it against "
                                    "(ResilienceScenario::UseStopConditionPrometheus, docs/safety.md)");
      }
      continue;
    }
    const bool known = std::find(builtin.begin(), builtin.end(), spec.signal) != builtin.end() ||
                       signals.count(spec.signal) != 0;
    if (!known) {
      std::vector<std::string> all = builtin;
      for (const auto& [name, source] : signals) all.push_back(name);
      throw std::invalid_argument(Prefix(spec) + "unknown signal '" + spec.signal + "' (known: " + Join(all) + ")");
    }
  }
}

std::vector<StopCondition> SafetyWatch::Build(const load::OpenModelRunner& runner) const {
  Check();
  std::vector<StopCondition> built;
  for (const config::StopConditionSpec& spec : conditions) {
    const ConditionRule rule = RuleOf(spec);
    if (!spec.promql.empty()) {
      built.push_back(PromqlCondition(rule, spec.promql, *prometheus));
      continue;
    }
    SignalSource source;
    if (std::optional<SignalSource> own = RunnerSignal(runner, spec.signal)) {
      source = std::move(*own);
    } else {
      source = signals.at(spec.signal);
    }
    const std::chrono::milliseconds window = Ms(spec.window_seconds);
    char what[160];
    std::snprintf(what, sizeof what, "signal %s over %.3g s", spec.signal.c_str(), spec.window_seconds);
    built.push_back(SignalCondition(rule, what, [source = std::move(source), window] { return source(window); }));
  }
  if (halt) built.push_back(halt->AsCondition());
  return built;
}

std::function<std::unique_ptr<scenario::AbortMonitor>(const load::OpenModelRunner&)> SafetyWatch::MonitorFactory()
    const {
  if (empty()) return {};
  Check();
  return [watch = *this](const load::OpenModelRunner& runner) -> std::unique_ptr<scenario::AbortMonitor> {
    return std::make_unique<AbortEnvelope>(watch.Build(runner), watch.options);
  };
}

}  // namespace aftershock::safety
