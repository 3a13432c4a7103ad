// ChaosScheduler: applies and reverts faults on the run's clock, in its own thread.
//
// It shares the RunClock with the open-model runner, so every failure in the load timeline can be
// attributed to the fault that caused it. Reverting is guaranteed: Finish() and the destructor revert
// whatever is still applied (the destructor at once, e.g. when a scenario throws or is interrupted).
// Faults of the same plan run one at a time in time order; a database fault never overlaps another
// database fault (the plan is checked up front).
//
// After every apply (every round) it asks the fault to confirm its effect (Fault::ConfirmApplied),
// and after every revert to confirm nothing is left behind (Fault::ConfirmReverted), each bounded by
// the step's confirm_timeout and by the fault's own next step (its revert, its next apply). A
// confirmation runs beside the plan, in its own thread, so it never delays another fault's step
// (rounds confirm in line: the next round waits for its gate anyway). Each answer is
// an event on the timeline with the time the effect was observed (confirmed | unconfirmed |
// unconfirmable after an apply; reverted-clean | residue | revert-unconfirmable after a revert), and
// confirmations() hands them to the fault-took-effect gate. A planned apply that never happened (a
// repeat window with no room for a round, a health gate or an apply that threw, a plan cut short by
// Finish's timeout or an abort) is recorded in skipped(), naming the fault, the round and why, so the
// gate can tell "every planned round happened" from "one round happened".
//
//   ChaosTimeline timeline(clock);
//   ChaosScheduler chaos(clock, timeline);
//   chaos.Start({{.at = 5s, .duration = 2s, .fault = stall}});
//   runner.Run();
//   chaos.Finish();          // waits for the plan's end (bounded), reverts leftovers, joins
#ifndef AFTERSHOCK_FRAMEWORK_CHAOS_CHAOS_SCHEDULER_H_
#define AFTERSHOCK_FRAMEWORK_CHAOS_CHAOS_SCHEDULER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "framework/chaos/chaos_timeline.h"
#include "framework/chaos/fault.h"
#include "framework/common/run_clock.h"

namespace aftershock::chaos {

struct TimedFault {
  std::chrono::milliseconds at{0};        // from the run start
  std::chrono::milliseconds duration{0};  // 0 = an instantaneous action (apply only, e.g. a kill)
  std::shared_ptr<Fault> fault{};
  bool database = false;                  // never two database faults at once
  // Rounds (instantaneous actions only): from `at`, wait for `gate`, apply, pause `repeat_pause`,
  // and repeat while the next round would start before `repeat_until` (from the run start). The
  // seed's primary kill: find the primary, kill, wait for three healthy members, pause, repeat.
  std::chrono::milliseconds repeat_pause{0};
  std::chrono::milliseconds repeat_until{0};
  // Called before every apply (health gating); throws when the system never got healthy.
  std::function<void()> gate{};
  // False for a condition rather than a disruption (e.g. a seeded defect held for the whole run):
  // no time-to-recover is measured from its end.
  bool measure_recovery = true;
  // How long the fault may take to show its effect (a failover) or the absence of residue.
  std::chrono::milliseconds confirm_timeout = std::chrono::seconds(30);
};

// One confirmation: of a round's effect (revert = false) or of the absence of residue after its
// revert (revert = true).
struct ConfirmationRecord {
  std::string fault;
  int round = 0;  // 1-based, counted per fault name over the whole plan
  bool revert = false;
  Confirmation::Status status = Confirmation::Status::kNotConfirmed;
  std::string detail;        // as on the timeline, e.g. "leader pg-b (was pg-a) after 7.4 s"
  double seconds = 0;        // run seconds of the observation (of the answer when not confirmed)
  double after_seconds = 0;  // from the apply (revert) to the observation
};

// A planned apply that did not happen: which fault, which round (1-based per fault name), and why.
struct SkippedRound {
  std::string fault{};
  int round = 0;
  std::string why{};  // "its repeat window is empty (...)", "the scheduler stopped before it (...)", ...
};

class ChaosScheduler {
 public:
  ChaosScheduler(RunClock clock, ChaosTimeline& timeline);
  ~ChaosScheduler();
  ChaosScheduler(const ChaosScheduler&) = delete;
  ChaosScheduler& operator=(const ChaosScheduler&) = delete;

  // Throws std::invalid_argument when two database faults overlap or a fault is missing.
  void Start(std::vector<TimedFault> plan);
  // Waits until the plan has run (at most `timeout`), then reverts anything still applied and joins.
  void Finish(std::chrono::milliseconds timeout = std::chrono::minutes(10));
  // Reverts everything applied now and stops (used on interrupt and by the destructor).
  void Abort();
  // Apply/revert failures, one message each (also in the timeline as "error" events).
  std::vector<std::string> errors() const;
  // Every confirmation so far, in the order they were made.
  std::vector<ConfirmationRecord> confirmations() const;
  // Every planned apply that did not happen, in plan order of discovery.
  std::vector<SkippedRound> skipped() const;

 private:
  void Loop();
  void RunRounds(std::size_t index);
  // Applies plan_[index]; then confirms its effect, at most until `confirm_by` (beside the plan, in
  // its own thread, when `in_background`).
  // Each confirms within the step's confirm_timeout from its own apply (revert), and by not_after.
  void ApplyOnce(std::size_t index, Clock::time_point not_after, bool in_background);
  void RevertAndConfirm(std::size_t index, Clock::time_point not_after);
  void Confirm(std::size_t index, bool revert, Clock::time_point since, Clock::time_point deadline, int round);
  void ConfirmInBackground(std::size_t index, bool revert, Clock::time_point since, Clock::time_point deadline,
                           int round);
  // Joins the pending confirmations of `fault` (nullptr: all). Only the loop thread touches pending_.
  void JoinPending(const Fault* fault);
  void RevertAllApplied();
  // Why a planned apply not reached was skipped: "the scheduler stopped before it (<stop_reason_>)".
  // Call with mu_ held.
  std::string StoppedBeforeItLocked() const;

  RunClock clock_;
  ChaosTimeline& timeline_;
  std::vector<TimedFault> plan_;
  std::vector<bool> applied_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool abort_ = false;
  std::atomic<bool> stopping_{false};  // abort_, readable by a confirmation's poll without mu_
  bool done_ = false;
  std::string stop_reason_;  // why the loop stopped early: set by Finish's timeout or Abort
  std::vector<std::string> errors_;
  std::vector<SkippedRound> skipped_;
  std::vector<ConfirmationRecord> confirmations_;
  std::map<std::string, int> rounds_;  // applies so far, per fault name
  std::vector<std::pair<const Fault*, std::thread>> pending_;  // confirmations running beside the plan
  std::thread thread_;
};

}  // namespace aftershock::chaos

#endif  // AFTERSHOCK_FRAMEWORK_CHAOS_CHAOS_SCHEDULER_H_
