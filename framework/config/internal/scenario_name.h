// The form of a scenario's name, one rule for the set manifest and for the environment's scenario
// list: non-empty, lowercase letters, digits and '-'.
//
//   IsScenarioName("payments-failover")  // true
//   IsScenarioName("Payments")           // false
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_SCENARIO_NAME_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_SCENARIO_NAME_H_

#include <algorithm>
#include <string_view>

namespace aftershock::config::internal {

inline bool IsScenarioName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

}  // namespace aftershock::config::internal

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_SCENARIO_NAME_H_
