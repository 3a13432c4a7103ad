// StopCondition: one rule of a run's safety watch (docs/safety.md). A value, read again and again
// (a PromQL expression against a real Prometheus, or a generator signal such as the reset ratio of
// the last 5 s), is compared with a threshold; the condition breaches once the comparison has held
// on end for its hold time ("for", as in a Prometheus alerting rule).
//
// A reading that fails (a query error, Prometheus down, an expression that returns no series) is
// "cannot see": it is reported, and it breaches the condition once it has lasted longer than the hold
// time, unless the condition says failures only count as notes (breach_on_failure = false). A safety
// net that went blind must not let the run go on as if all were well; the default is the safe side.
// A reading with nothing to judge (a ratio over a window without traffic) neither holds nor fails.
//
//   StopCondition cpu = PromqlCondition({.name = "cpu", .comparator = Comparator::kAbove, .threshold = 85,
//                                        .hold = 30s}, "100 * (1 - avg(rate(node_cpu_seconds_total{mode=\"idle\"}[30s])))",
//                                       prometheus);
//   ConditionTracker tracker(cpu);
//   if (std::optional<Breach> b = tracker.Observe(cpu.evaluate(), Clock::now())) ... b->reason
#ifndef AFTERSHOCK_FRAMEWORK_SAFETY_STOP_CONDITION_H_
#define AFTERSHOCK_FRAMEWORK_SAFETY_STOP_CONDITION_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "framework/alerting/prometheus_client.h"
#include "framework/common/run_clock.h"

namespace aftershock::safety {

enum class Comparator { kAbove, kAtLeast, kBelow, kAtMost };  // >, >=, <, <=

// ">" -> kAbove ... ; nullopt for anything else.
std::optional<Comparator> ParseComparator(std::string_view text);
std::string_view ComparatorText(Comparator comparator);
bool Holds(Comparator comparator, double value, double threshold);

// One reading of a condition's value.
struct Reading {
  std::optional<double> value{};  // empty with an empty error: nothing to judge (no traffic in the window)
  std::string error{};            // non-empty: the reading failed ("cannot see")
  std::string detail{};           // where the value came from, e.g. the labels of the worst series

  static Reading Of(double value, std::string detail = {}) { return {value, {}, std::move(detail)}; }
  static Reading Nothing(std::string detail = {}) { return {std::nullopt, {}, std::move(detail)}; }
  static Reading Failed(std::string error) { return {std::nullopt, std::move(error), {}}; }
};

using Evaluator = std::function<Reading()>;

struct StopCondition {
  std::string name;      // e.g. "free-disk"; "operator-halt" is the operator halt's
  std::string what;      // what is read, for messages: the PromQL expression, "signal error_ratio over 5 s"
  Comparator comparator = Comparator::kAbove;
  double threshold = 0;
  std::chrono::milliseconds hold{0};  // the comparison must hold this long on end ("for")
  bool breach_on_failure = true;
  Evaluator evaluate;  // called on the envelope's thread of this condition; must return within seconds
  // Optional: the breach's reason from the breaching reading (the operator halt says which file).
  std::function<std::string(const Reading&)> describe_breach;
};

// The first breach of a condition.
struct Breach {
  std::string condition{};
  std::string reason{};           // one line: "cpu: <what> = 91.2 > 85 held for 30.0 s"
  std::optional<double> value{};  // empty for a "cannot see" breach
  Clock::time_point at{};
  std::chrono::system_clock::time_point wall_at{};
};

// What a tracker has seen so far, for notes and tests.
struct ConditionStatus {
  std::string name;
  std::uint64_t readings = 0;
  std::uint64_t failures = 0;
  std::optional<double> last_value;
  std::string last_error;
  bool holding = false;  // the comparison holds now (pending, or breached)
};

// The "for" logic of one condition, with the time given (so tests need no clock). Not thread-safe.
class ConditionTracker {
 public:
  explicit ConditionTracker(const StopCondition& condition);
  // Feeds one reading taken at `now` (steady) / `wall_now`; returns the breach when this reading
  // completes one. After a breach it keeps counting but never breaches again.
  std::optional<Breach> Observe(const Reading& reading, Clock::time_point now,
                                std::chrono::system_clock::time_point wall_now = std::chrono::system_clock::now());
  const ConditionStatus& status() const { return status_; }
  bool breached() const { return breached_; }

 private:
  const StopCondition& condition_;
  ConditionStatus status_;
  std::optional<Clock::time_point> holding_since_;
  std::optional<Clock::time_point> failing_since_;
  bool breached_ = false;
};

// A condition on a PromQL expression, read as an instant query. With several series the worst one
// decides (the largest for > and >=, the smallest for < and <=: "any filesystem under 20 %"), its
// labels in the detail; no series at all is a failed reading (the expression sees nothing).
struct ConditionRule {
  std::string name{};
  Comparator comparator = Comparator::kAbove;
  double threshold = 0;
  std::chrono::milliseconds hold{0};
  bool breach_on_failure = true;
};
StopCondition PromqlCondition(const ConditionRule& rule, std::string promql, alerting::PrometheusClient prometheus);
// A condition on any reading function (a generator signal, a suite's own probe).
StopCondition SignalCondition(const ConditionRule& rule, std::string what, Evaluator evaluate);

}  // namespace aftershock::safety

#endif  // AFTERSHOCK_FRAMEWORK_SAFETY_STOP_CONDITION_H_
