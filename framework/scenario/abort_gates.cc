#include "framework/scenario/abort_gates.h"

#include <cstdio>

namespace aftershock::scenario {
namespace {

std::string Seconds(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

// A stop latency is usually well under a second: milliseconds matter.
std::string Latency(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

std::string JoinNotes(const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& n : notes) out += (out.empty() ? "" : "; ") + n;
  return out;
}

}  // namespace

std::string DescribeAbort(const AbortRecord& a) {
  std::string text = "aborted at t=" + Seconds(a.breach_seconds) + " s by " +
                     (a.condition == "operator-halt" ? std::string("the operator halt")
                                                     : "stop condition '" + a.condition + "'") +
                     ": " + a.reason + "; ";
  if (a.last_request_seconds < 0) {
    text += "no request was sent at all";
  } else if (a.last_request_seconds <= a.breach_seconds) {
    text += "no request was sent after the breach (the last at t=" + Seconds(a.last_request_seconds) + " s)";
  } else {
    text += "load stopped " + Latency(a.stop_latency_seconds) + " s after the breach (last request sent at t=" +
            Seconds(a.last_request_seconds) + " s)";
  }
  return text;
}

std::vector<gates::GateResult> AbortGates(const std::optional<AbortRecord>& abort,
                                          const std::vector<std::string>& notes, double max_stop_latency_seconds) {
  std::vector<gates::GateResult> results;
  if (!abort) {
    std::string message = "no stop condition breached during the load";
    if (!notes.empty()) message += " (" + JoinNotes(notes) + ")";
    results.push_back({.name = kRunNotAbortedGate, .passed = true, .message = message,
                       .figures = {{"aborted", 0}}});
    results.push_back(gates::NotApplicable(kAbortStopLatencyGate, "the run was not aborted"));
    results.front().Declare(gates::FigureDirection::kLowerIsBetter, {"aborted"});
    return results;
  }
  std::string message = DescribeAbort(*abort);
  if (!notes.empty()) message += " (" + JoinNotes(notes) + ")";
  results.push_back({.name = kRunNotAbortedGate, .passed = false, .message = message,
                     .figures = {{"aborted", 1},
                                 {"abort_breach_second", abort->breach_seconds},
                                 {"abort_last_request_second", abort->last_request_seconds},
                                 {"abort_stop_latency_seconds", abort->stop_latency_seconds}}});
  const bool within = abort->stop_latency_seconds <= max_stop_latency_seconds;
  results.push_back({.name = kAbortStopLatencyGate, .passed = within,
                     .message = "load stopped " + Latency(abort->stop_latency_seconds) +
                                " s after the breach (from the breach to the last request sent; budget " +
                                Seconds(max_stop_latency_seconds) + " s)" +
                                (within ? "" : ": requests went on after the stop condition breached"),
                     .figures = {{"abort_stop_latency_seconds", abort->stop_latency_seconds},
                                 {"abort_stop_latency_budget_seconds", max_stop_latency_seconds}}});
  for (gates::GateResult& g : results) {
    g.Declare(gates::FigureDirection::kLowerIsBetter, {"aborted", "abort_stop_latency_seconds"})
        .Declare(gates::FigureDirection::kNeither,
                 {"abort_breach_second", "abort_last_request_second", "abort_stop_latency_budget_seconds"});
  }
  return results;
}

}  // namespace aftershock::scenario
