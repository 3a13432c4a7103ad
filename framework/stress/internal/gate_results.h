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

inline gates::GateResult Red(std::string_view name, std::string message,
                             std::vector<std::pair<std::string, double>> figures = {}) {
  return gates::GateResult{
      .name = std::string(name), .passed = false, .message = std::move(message), .figures = std::move(figures)};
}

inline gates::GateResult Green(std::string_view name, std::string message,
                               std::vector<std::pair<std::string, double>> figures = {}) {
  return gates::GateResult{
      .name = std::string(name), .passed = true, .message = std::move(message), .figures = std::move(figures)};
}

}  // namespace aftershock::stress::internal

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_INTERNAL_GATE_RESULTS_H_
