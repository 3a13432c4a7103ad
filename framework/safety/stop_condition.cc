#include "framework/safety/stop_condition.h"

#include <cmath>
#include <cstdio>
#include <exception>

namespace aftershock::safety {
namespace {

std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string SecondsText(Clock::duration d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f s", std::chrono::duration<double>(d).count());
  return buf;
}

std::string Labels(const alerting::LabelSet& labels) {
  std::string out;
  for (const auto& [name, value] : labels) {
    out += (out.empty() ? "{" : ", ") + name + "=\"" + value + "\"";
  }
  return out.empty() ? out : out + "}";
}

}  // namespace

std::optional<Comparator> ParseComparator(std::string_view text) {
  if (text == ">") return Comparator::kAbove;
  if (text == ">=") return Comparator::kAtLeast;
  if (text == "<") return Comparator::kBelow;
  if (text == "<=") return Comparator::kAtMost;
  return std::nullopt;
}

std::string_view ComparatorText(Comparator comparator) {
  switch (comparator) {
    case Comparator::kAbove: return ">";
    case Comparator::kAtLeast: return ">=";
    case Comparator::kBelow: return "<";
    case Comparator::kAtMost: return "<=";
  }
  return "?";
}

bool Holds(Comparator comparator, double value, double threshold) {
  if (std::isnan(value)) return false;
  switch (comparator) {
    case Comparator::kAbove: return value > threshold;
    case Comparator::kAtLeast: return value >= threshold;
    case Comparator::kBelow: return value < threshold;
    case Comparator::kAtMost: return value <= threshold;
  }
  return false;
}

ConditionTracker::ConditionTracker(const StopCondition& condition) : condition_(condition) {
  status_.name = condition.name;
}

std::optional<Breach> ConditionTracker::Observe(const Reading& reading, Clock::time_point now,
                                                std::chrono::system_clock::time_point wall_now) {
  ++status_.readings;
  if (!reading.error.empty()) {
    ++status_.failures;
    status_.last_error = reading.error;
    status_.holding = false;
    holding_since_.reset();  // a blind reading does not prove that the comparison held on
    if (!failing_since_) failing_since_ = now;
    // "Longer than its for": with for 0 the second failed reading in a row breaches, never one alone.
    if (breached_ || !condition_.breach_on_failure || now - *failing_since_ <= condition_.hold) return std::nullopt;
    breached_ = true;
    return Breach{.condition = condition_.name,
                  .reason = condition_.name + ": cannot see " + condition_.what + " for " +
                            SecondsText(now - *failing_since_) + " (last error: " + reading.error + ")",
                  .value = std::nullopt,
                  .at = now,
                  .wall_at = wall_now};
  }
  failing_since_.reset();
  status_.last_value = reading.value;
  if (!reading.value || !Holds(condition_.comparator, *reading.value, condition_.threshold)) {
    status_.holding = false;
    holding_since_.reset();
    return std::nullopt;
  }
  status_.holding = true;
  if (!holding_since_) holding_since_ = now;
  if (breached_ || now - *holding_since_ < condition_.hold) return std::nullopt;
  breached_ = true;
  std::string reason;
  if (condition_.describe_breach) {
    reason = condition_.describe_breach(reading);
  } else {
    reason = condition_.name + ": " + condition_.what + " = " + Number(*reading.value) + " " +
             std::string(ComparatorText(condition_.comparator)) + " " + Number(condition_.threshold);
    if (condition_.hold.count() > 0) reason += " held for " + SecondsText(now - *holding_since_);
    if (!reading.detail.empty()) reason += " (" + reading.detail + ")";
  }
  return Breach{.condition = condition_.name, .reason = std::move(reason), .value = reading.value, .at = now,
                .wall_at = wall_now};
}

StopCondition PromqlCondition(const ConditionRule& rule, std::string promql, alerting::PrometheusClient prometheus) {
  StopCondition c;
  c.name = rule.name;
  c.what = promql;
  c.comparator = rule.comparator;
  c.threshold = rule.threshold;
  c.hold = rule.hold;
  c.breach_on_failure = rule.breach_on_failure;
  const bool worst_is_largest = rule.comparator == Comparator::kAbove || rule.comparator == Comparator::kAtLeast;
  c.evaluate = [promql = std::move(promql), prometheus = std::move(prometheus), worst_is_largest]() -> Reading {
    std::vector<alerting::Sample> samples;
    try {
      samples = prometheus.QueryVector(promql);
    } catch (const std::exception& e) {
      return Reading::Failed(e.what());
    }
    const alerting::Sample* worst = nullptr;
    for (const alerting::Sample& s : samples) {
      if (std::isnan(s.value)) continue;
      if (worst == nullptr || (worst_is_largest ? s.value > worst->value : s.value < worst->value)) worst = &s;
    }
    if (worst == nullptr) {
      return Reading::Failed(samples.empty() ? "the query returned no series"
                                             : "the query returned only NaN values");
    }
    std::string detail = Labels(worst->labels);
    if (samples.size() > 1) detail = "worst of " + std::to_string(samples.size()) + " series: " + detail;
    return Reading::Of(worst->value, std::move(detail));
  };
  return c;
}

StopCondition SignalCondition(const ConditionRule& rule, std::string what, Evaluator evaluate) {
  StopCondition c;
  c.name = rule.name;
  c.what = std::move(what);
  c.comparator = rule.comparator;
  c.threshold = rule.threshold;
  c.hold = rule.hold;
  c.breach_on_failure = rule.breach_on_failure;
  c.evaluate = std::move(evaluate);
  return c;
}

}  // namespace aftershock::safety
