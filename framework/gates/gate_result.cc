#include "framework/gates/gate_result.h"

#include <algorithm>
#include <stdexcept>

namespace aftershock::gates {

GateResult NotApplicable(std::string name, std::string reason, std::vector<std::pair<std::string, double>> figures) {
  GateResult r;
  r.name = std::move(name);
  r.passed = true;
  r.not_applicable = true;
  r.message = std::move(reason);
  r.figures = std::move(figures);
  return r;
}

std::string_view DirectionName(FigureDirection direction) {
  switch (direction) {
    case FigureDirection::kLowerIsBetter: return "lower";
    case FigureDirection::kHigherIsBetter: return "higher";
    case FigureDirection::kNeither: break;
  }
  return "neither";
}

std::string_view StatusWord(const GateResult& result) {
  if (!result.passed) return "FAIL";
  return result.not_applicable ? "N/A" : "PASS";
}

std::string_view StatusProperty(const GateResult& result) {
  if (!result.passed) return "fail";
  return result.not_applicable ? "not-applicable" : "pass";
}

bool AllPassed(const std::vector<GateResult>& results) {
  return std::all_of(results.begin(), results.end(), [](const GateResult& r) { return r.passed; });
}

std::string FormatGateReport(const std::vector<GateResult>& results) {
  std::string out;
  for (const GateResult& r : results) out += std::string(StatusWord(r)) + " " + r.name + ": " + r.message + "\n";
  return out;
}

std::vector<std::string> FailureReasons(const std::vector<GateResult>& results) {
  std::vector<std::string> reasons;
  for (const GateResult& r : results) {
    if (!r.passed) reasons.push_back(r.name + ": " + r.message);
  }
  return reasons;
}

void AppendGateResults(std::vector<GateResult>& results, std::vector<GateResult> more) {
  for (GateResult& r : more) {
    if (r.name.empty()) throw std::invalid_argument("a gate result has no name (message: '" + r.message + "')");
    const bool taken =
        std::any_of(results.begin(), results.end(), [&](const GateResult& g) { return g.name == r.name; });
    if (taken) throw std::invalid_argument("gate '" + r.name + "' is reported twice");
    results.push_back(std::move(r));
  }
}

}  // namespace aftershock::gates
