// IsPlainName: the one rule for names that end up in stdout markers and in a directory name (a set
// name, a scenario name): one plain word of letters, digits, '.', '_' and '-', never "." or "..".
//
//   IsPlainName("pr-set_1.2")  // true
//   IsPlainName("a/b")         // false
#ifndef AFTERSHOCK_FRAMEWORK_GTEST_INTERNAL_PLAIN_NAME_H_
#define AFTERSHOCK_FRAMEWORK_GTEST_INTERNAL_PLAIN_NAME_H_

#include <string_view>

namespace aftershock::gtest_integration::internal {

inline bool IsPlainName(std::string_view v) {
  if (v.empty() || v == "." || v == "..") return false;
  for (char c : v) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace aftershock::gtest_integration::internal

#endif  // AFTERSHOCK_FRAMEWORK_GTEST_INTERNAL_PLAIN_NAME_H_
