// Test helpers for the gates' tests: a GateResult in one expression, and a gate of a result list by
// name.
//
//   std::vector<GateResult> results = {MakeGateResult("availability", false, "3 s below 99%")};
//   EXPECT_FALSE(GateNamed(results, "availability").passed);   // throws when there is no such gate
#ifndef AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TEST_GATE_RESULTS_H_
#define AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TEST_GATE_RESULTS_H_

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/gates/gate_result.h"

namespace aftershock::gates::internal {

// A result without figures (designated initializers would warn about the members left out).
inline GateResult MakeGateResult(std::string name, bool passed, std::string message, bool not_applicable = false) {
  GateResult r;
  r.name = std::move(name);
  r.passed = passed;
  r.message = std::move(message);
  r.not_applicable = not_applicable;
  return r;
}

inline const GateResult& GateNamed(const std::vector<GateResult>& results, std::string_view name) {
  for (const GateResult& r : results) {
    if (r.name == name) return r;
  }
  throw std::runtime_error("no gate " + std::string(name));
}

}  // namespace aftershock::gates::internal

#endif  // AFTERSHOCK_FRAMEWORK_GATES_INTERNAL_TEST_GATE_RESULTS_H_
