// ChaosTimeline: what the chaos scheduler did and when, on the run's clock.
//
// Written as chaos-timeline.csv next to load-timeline.csv; both carry unix_ms and second from the
// same run start, so they join on time. Columns:
//   unix_ms,second,event,fault,detail
// where event is apply or revert (a fault with a duration), action (an instantaneous one, e.g. a
// kill), error, or a fault's proof of what it did, at the time it was observed: confirmed |
// unconfirmed | unconfirmable after an apply or action, reverted-clean | residue |
// revert-unconfirmable after a revert (the detail says what was seen, e.g. "leader pg-b (was pg-a)
// after 7.4 s"). Rows are kept in time order. Thread-safe.
//
//   ChaosTimeline timeline(clock);
//   timeline.Record(Clock::now(), "apply", "stall", "2000 ms");
//   std::size_t rows = timeline.WriteCsv(std::cout);
#ifndef AFTERSHOCK_FRAMEWORK_CHAOS_CHAOS_TIMELINE_H_
#define AFTERSHOCK_FRAMEWORK_CHAOS_CHAOS_TIMELINE_H_

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "framework/common/run_clock.h"

namespace aftershock::chaos {

struct ChaosEvent {
  std::int64_t unix_ms = 0;
  double seconds = 0;  // since the run start, with millisecond precision
  std::string event;   // apply | revert | action | error | confirmed | unconfirmed | ... (see above)
  std::string fault;
  std::string detail;
};

// One fault's active span, in whole run seconds [begin, end] and in run-clock milliseconds of its
// apply and revert (equal for an action), for gates such as time-to-recover.
struct FaultSpan {
  std::string fault;
  std::int64_t begin_second = 0;
  std::int64_t end_second = 0;
  double apply_ms = 0;
  double revert_ms = 0;
};

class ChaosTimeline {
 public:
  explicit ChaosTimeline(RunClock clock = {}) : clock_(clock) {}
  ChaosTimeline(const ChaosTimeline& other);
  ChaosTimeline& operator=(const ChaosTimeline& other);

  void Record(Clock::time_point at, std::string event, std::string fault, std::string detail = "");
  // Called with every event as it is recorded (from the recording thread, outside the lock), e.g.
  // so the ledger pins promises around a fault's actual window. Copies of a timeline have none.
  void SetListener(std::function<void(const ChaosEvent&)> listener);
  std::vector<ChaosEvent> events() const;
  // Pairs each apply with the next revert of the same fault (an unreverted one ends at
  // `run_end_second`, at its start in ms); an action spans its own second and instant.
  std::vector<FaultSpan> Spans(std::int64_t run_end_second) const;
  std::size_t WriteCsv(std::ostream& out) const;

 private:
  RunClock clock_;
  mutable std::mutex mu_;
  std::vector<ChaosEvent> events_;
  std::function<void(const ChaosEvent&)> listener_;
};

}  // namespace aftershock::chaos

#endif  // AFTERSHOCK_FRAMEWORK_CHAOS_CHAOS_TIMELINE_H_
