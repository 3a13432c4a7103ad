// The red and green GateResult every stress gate returns, one spelling for stress_gates.cc and
// breaker_gates.cc.
//
//   return Red(kNoHang, "3 calls hung past 5 s", {{"hung", 3}});
//   return Green(kNoHang, "no call hung");
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_GATE_RESULTS_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_GATE_RESULTS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/gates/gate_result.h"

namespace aftershock::stress::internal {

// Which way every figure the stress and breaker gates make is better (gates.json carries it for
// `aftershock-report compare`). A figure missing here is compared as neither: add it when adding one.
// Times that are -1 for "never" (a breaker that never tripped) are neither: their gate judges them.
inline gates::FigureDirection StressFigureDirection(std::string_view figure) {
  using D = gates::FigureDirection;
  static constexpr std::pair<std::string_view, D> kDirections[] = {
      {"shedding_goodput", D::kHigherIsBetter},      {"shedding_capacity_fraction", D::kHigherIsBetter},
      {"shedding_shed_responses", D::kNeither},      {"shedding_violations", D::kLowerIsBetter},
      {"shed_latency_p99_ms", D::kLowerIsBetter},    {"shed_latency_max_ms", D::kLowerIsBetter},
      {"shed_latency_responses", D::kNeither},       {"no_hang_max_latency_seconds", D::kLowerIsBetter},
      {"no_hang_over_bound", D::kLowerIsBetter},     {"target_restarts", D::kLowerIsBetter},
      {"no_hang_probes", D::kNeither},               {"no_hang_probes_hung", D::kLowerIsBetter},
      {"no_hang_probe_max_latency_seconds", D::kLowerIsBetter},
      {"recovery_seconds", D::kLowerIsBetter},       {"recovery_limit_seconds", D::kNeither},
      // The pool's in-use share of its size: rising toward 1 is the failure (not "a ratio, higher").
      {"downstream_max_ratio", D::kLowerIsBetter},   {"downstream_samples", D::kNeither},
      {"downstream_over_limit", D::kLowerIsBetter},  {"breaker_trip_seconds", D::kNeither},
      {"breaker_trip_budget_seconds", D::kNeither},  {"breaker_open_p99_ms", D::kLowerIsBetter},
      {"breaker_open_p99_budget_ms", D::kNeither},   {"breaker_close_seconds", D::kNeither},
      {"breaker_close_budget_seconds", D::kNeither}};
  for (const auto& [name, direction] : kDirections) {
    if (name == figure) return direction;
  }
  return D::kNeither;
}

// Declares the direction of each of `r`'s figures (StressFigureDirection).
inline gates::GateResult& DeclareStressFigures(gates::GateResult& r) {
  for (const auto& [name, value] : r.figures) r.directions[name] = StressFigureDirection(name);
  return r;
}

inline gates::GateResult Red(std::string_view name, std::string message,
                             std::vector<std::pair<std::string, double>> figures = {}) {
  gates::GateResult r{
      .name = std::string(name), .passed = false, .message = std::move(message), .figures = std::move(figures)};
  return DeclareStressFigures(r);
}

inline gates::GateResult Green(std::string_view name, std::string message,
                               std::vector<std::pair<std::string, double>> figures = {}) {
  gates::GateResult r{
      .name = std::string(name), .passed = true, .message = std::move(message), .figures = std::move(figures)};
  return DeclareStressFigures(r);
}

}  // namespace aftershock::stress::internal

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_GATE_RESULTS_H_
