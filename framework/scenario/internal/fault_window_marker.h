// FaultWindowMarker: pins the ledger's promises around each fault's actual window, from the chaos
// timeline as the scheduler records it: an apply opens a span, its revert closes it; an instantaneous
// action spans its own instant; a later event of the same fault (e.g. a confirmation) extends a
// closed span.
//
//   auto marker = std::make_shared<FaultWindowMarker>(ledger);
//   timeline.SetListener([marker](const chaos::ChaosEvent& e) { (*marker)(e); });
#ifndef AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_FAULT_WINDOW_MARKER_H_
#define AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_FAULT_WINDOW_MARKER_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "framework/chaos/chaos_timeline.h"
#include "framework/ledger/promise_ledger.h"

namespace aftershock::scenario::internal {

class FaultWindowMarker {
 public:
  explicit FaultWindowMarker(ledger::PromiseLedger& ledger) : ledger_(ledger) {}
  void operator()(const chaos::ChaosEvent& e);

 private:
  struct SpanState {
    std::uint64_t id = 0;
    bool open = false;
  };
  ledger::PromiseLedger& ledger_;
  std::mutex mu_;
  std::map<std::string, SpanState> spans_;
};

}  // namespace aftershock::scenario::internal

#endif  // AFTERSHOCK_FRAMEWORK_SCENARIO_INTERNAL_FAULT_WINDOW_MARKER_H_
