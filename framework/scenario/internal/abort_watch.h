// AbortWatch: RunScenario's thread beside the load that reacts to the safety watch at once: on the
// monitor's first breach it records the abort on the chaos timeline (at the breach's time) and
// aborts the chaos plan, so faults are reverted while the runner is still draining its calls.
//
//   AbortWatch watch(*monitor, timeline, [&] { scheduler.Abort(); });
//   runner.Run();          // its stop check includes monitor->Breached()
//   watch.Stop();          // joins; watch.request() is the breach, if any
#ifndef AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_ABORT_WATCH_H_
#define AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_ABORT_WATCH_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "framework/chaos/chaos_timeline.h"
#include "framework/scenario/abort_monitor.h"

namespace aftershock::scenario::internal {

class AbortWatch {
 public:
  AbortWatch(const AbortMonitor& monitor, chaos::ChaosTimeline& timeline, std::function<void()> on_abort);
  ~AbortWatch();
  AbortWatch(const AbortWatch&) = delete;
  AbortWatch& operator=(const AbortWatch&) = delete;

  // Stops watching (one last look first) and joins. Idempotent.
  void Stop();
  // The breach the watch acted on; only after Stop().
  const std::optional<AbortRequest>& request() const { return request_; }

 private:
  void Loop();
  bool Look();  // true once acted on

  const AbortMonitor& monitor_;
  chaos::ChaosTimeline& timeline_;
  std::function<void()> on_abort_;
  std::optional<AbortRequest> request_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace aftershock::scenario::internal

#endif  // AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_ABORT_WATCH_H_
