// "Did you mean" for misspelt keys and variables: the known name closest in edit distance.
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_NEAREST_NAME_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_NEAREST_NAME_H_

#include <string>
#include <string_view>
#include <vector>

namespace aftershock::config::internal {

// The name in `known` closest to `name` when it is within a small edit distance (a typo rather than a
// different word), else "".
std::string NearestName(std::string_view name, const std::vector<std::string>& known);

// "a, b, c"
std::string JoinNames(const std::vector<std::string>& names);

}  // namespace aftershock::config::internal

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_NEAREST_NAME_H_
