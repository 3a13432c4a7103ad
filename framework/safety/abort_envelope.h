// AbortEnvelope: a run's safety watch (docs/safety.md). Every StopCondition is read again and again
// on a thread of its own (one slow Prometheus query never delays another condition), every
// `interval`, from construction until destruction (RAII: the destructor stops and joins them). The
// first breach of any condition is kept (condition, reason, value, steady and wall time) and
// Breached() turns true: an atomic load, cheap enough for the runner's check of every arrival. It is
// a scenario::AbortMonitor, so RunScenario stops the load, reverts the faults and reports the abort.
//
//   AbortEnvelope envelope({PromqlCondition(cpu_rule, cpu_promql, prometheus), halt.AsCondition()},
//                          {.interval = std::chrono::milliseconds(500)});
//   runner_options.stop_requested = [&] { return envelope.Breached(); };
//   if (auto b = envelope.FirstBreach()) std::cerr << b->reason;
#ifndef AFTERSHOCK_FRAMEWORK_SAFETY_ABORT_ENVELOPE_H_
#define AFTERSHOCK_FRAMEWORK_SAFETY_ABORT_ENVELOPE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "framework/scenario/abort_monitor.h"
#include "framework/safety/stop_condition.h"

namespace aftershock::safety {

struct AbortEnvelopeOptions {
  std::chrono::milliseconds interval{500};  // between two readings of one condition (10 ms .. 60 s)
};

class AbortEnvelope : public scenario::AbortMonitor {
 public:
  // Starts watching at once (the first reading of each condition now). Throws std::invalid_argument
  // for an interval out of range, a condition without a name or an evaluator, or two of one name.
  AbortEnvelope(std::vector<StopCondition> conditions, AbortEnvelopeOptions options = {});
  ~AbortEnvelope() override;
  AbortEnvelope(const AbortEnvelope&) = delete;
  AbortEnvelope& operator=(const AbortEnvelope&) = delete;

  bool Breached() const override { return breached_.load(std::memory_order_acquire); }
  std::optional<scenario::AbortRequest> FirstBreach() const override;
  // "<n> stop conditions [and the operator halt] read every <interval> ms", then one line per
  // condition that failed readings.
  std::vector<std::string> Notes() const override;

  std::optional<Breach> first_breach() const;
  std::vector<ConditionStatus> statuses() const;
  // Stops and joins the threads (idempotent); the destructor calls it.
  void Stop();

 private:
  void Watch(std::size_t index);

  std::vector<StopCondition> conditions_;
  AbortEnvelopeOptions options_;
  std::vector<ConditionTracker> trackers_;  // trackers_[i] on thread i only; statuses under mu_
  std::vector<ConditionStatus> statuses_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<bool> breached_{false};
  std::optional<Breach> first_;
  std::vector<std::thread> threads_;
};

}  // namespace aftershock::safety

#endif  // AFTERSHOCK_FRAMEWORK_SAFETY_ABORT_ENVELOPE_H_
