// FinalSeconds: which intended seconds of an open-model run can no longer change, so the runner can
// compact their timeline buckets (SecondBucket::Compact) while the run goes on.
//
// Internal to the load runner. The rule, from the runner's contract (open_model_runner.h): a
// second's bucket is written only (1) when the dispatcher handles one of its arrivals (offered,
// shed, dispatch lag) and (2) when one of its issued calls reaches its final outcome (latency,
// ok/failed, codes); a retry only bumps a counter. Arrivals are handled in schedule order, so
// second s is FINAL once the dispatcher has handled an arrival of a later second (or ended) AND none
// of s's issued calls is still in flight (a call waiting for a retry is in flight).
// A clock rule such as "now > s + 1 s + deadline" would not be exact: a late dispatcher sends s's
// calls after s has passed and their deadlines count from the actual send, and a transport may
// report an outcome long past the deadline (GeneratorHealth::late_completions; the drain waits
// for it). Counting calls in flight per second is exact and costs one map update per call under
// the lock the runner already holds. Should an arrival ever come out of order, nothing breaks:
// recording into a compact bucket expands it, and it is reported final again once quiet.
// Not thread-safe: the runner calls it under its timeline lock.
//
//   FinalSeconds final_seconds;
//   final_seconds.ArrivalHandled(second, compact);   // compact(s) for s that became final
//   final_seconds.CallIssued(second);
//   final_seconds.CallFinished(second, compact);
//   final_seconds.DispatchEnded(compact);
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_FINAL_SECONDS_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_FINAL_SECONDS_H_

#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

namespace aftershock::load::internal {

class FinalSeconds {
 public:
  // The dispatcher handles an arrival (issued or shed) intended in `second`: the second handled
  // before it becomes final now if none of its calls is in flight.
  template <typename OnFinal>
  void ArrivalHandled(std::int64_t second, OnFinal on_final) {
    if (second <= dispatching_) return;
    const std::int64_t passed = dispatching_;
    dispatching_ = second;
    if (passed >= 0 && in_flight_.count(passed) == 0) on_final(passed);
  }

  // A call intended in `second` was issued (after ArrivalHandled for it).
  void CallIssued(std::int64_t second) { ++in_flight_[second]; }

  // A call intended in `second` reached its final outcome and was recorded: its second becomes
  // final if the dispatcher is past it and this was its last call in flight. Throws
  // std::logic_error for a second with no call in flight (a runner bug, not bad input).
  template <typename OnFinal>
  void CallFinished(std::int64_t second, OnFinal on_final) {
    const auto it = in_flight_.find(second);
    if (it == in_flight_.end()) {
      throw std::logic_error("FinalSeconds: a call of second " + std::to_string(second) +
                             " finished but none was in flight");
    }
    if (--it->second > 0) return;
    in_flight_.erase(it);
    if (second < dispatching_) on_final(second);
  }

  // The dispatcher handles no more arrivals (end of the profile, or a stop): the last second it
  // handled becomes final once its calls are done.
  template <typename OnFinal>
  void DispatchEnded(OnFinal on_final) {
    constexpr std::int64_t kEnded = std::numeric_limits<std::int64_t>::max();
    const std::int64_t passed = dispatching_;
    dispatching_ = kEnded;
    if (passed >= 0 && passed != kEnded && in_flight_.count(passed) == 0) on_final(passed);
  }

  // Seconds with a call in flight (for tests).
  std::size_t seconds_in_flight() const { return in_flight_.size(); }

 private:
  std::int64_t dispatching_ = -1;               // the second of the last arrival handled
  std::map<std::int64_t, std::int64_t> in_flight_;  // second -> calls in flight (> 0)
};

}  // namespace aftershock::load::internal

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_INTERNAL_FINAL_SECONDS_H_
