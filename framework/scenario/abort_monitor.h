// AbortMonitor: what RunScenario watches while the load runs, to stop a run that has become unsafe
// (a stop condition breached, an operator halt). RunScenario stops dispatching as soon as
// Breached() turns true, aborts the chaos plan (every applied fault reverted, as on SIGINT), records
// the abort on the chaos timeline and in ScenarioOutcome::abort, and turns the gate run-not-aborted
// red with the reason. framework/safety's AbortEnvelope is the implementation; a test or a suite may
// bring its own.
//
//   plan.abort_monitor = [&](const load::OpenModelRunner& runner) -> std::unique_ptr<AbortMonitor> {
//     return std::make_unique<safety::AbortEnvelope>(conditions_with(runner), options);
//   };
#ifndef AFTERSHOCK_FRAMEWORK_SCENARIO_ABORT_MONITOR_H_
#define AFTERSHOCK_FRAMEWORK_SCENARIO_ABORT_MONITOR_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "framework/common/run_clock.h"

namespace aftershock::scenario {

// The first reason to stop, as the monitor saw it.
struct AbortRequest {
  std::string condition;  // the stop condition's name, e.g. "db-cpu", or "operator-halt"
  std::string reason;     // one line, e.g. "db-cpu: avg cpu = 91.2 > 85 held for 30 s"
  Clock::time_point at{};                          // the breach, on the steady clock
  std::chrono::system_clock::time_point wall_at{};  // the same moment on the wall clock
};

class AbortMonitor {
 public:
  virtual ~AbortMonitor() = default;
  // Cheap (an atomic load), from any thread: it sits in the runner's stop check of every arrival.
  virtual bool Breached() const = 0;
  // The first breach, once Breached() is true; it never changes after that.
  virtual std::optional<AbortRequest> FirstBreach() const = 0;
  // What the run's verdict should say about the watch even without a breach, e.g. "condition
  // 'free-disk' could not be evaluated 3 of 40 times (last: connection refused)". One line each.
  virtual std::vector<std::string> Notes() const { return {}; }
};

}  // namespace aftershock::scenario

#endif  // AFTERSHOCK_FRAMEWORK_SCENARIO_ABORT_MONITOR_H_
