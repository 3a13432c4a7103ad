#include "framework/scenario/internal/fault_window_marker.h"

namespace aftershock::scenario::internal {

void FaultWindowMarker::operator()(const chaos::ChaosEvent& e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (e.fault.empty()) return;
  if (e.event == "apply") {
    spans_[e.fault] = {ledger_.OpenFault(e.unix_ms), true};
  } else if (e.event == "action") {
    const std::uint64_t id = ledger_.OpenFault(e.unix_ms);
    ledger_.CloseFault(id, e.unix_ms);
    spans_[e.fault] = {id, false};
  } else if (auto it = spans_.find(e.fault); it != spans_.end()) {
    if (e.event == "revert" || !it->second.open) {
      ledger_.CloseFault(it->second.id, e.unix_ms);
      it->second.open = false;
    }
  }
}

}  // namespace aftershock::scenario::internal
