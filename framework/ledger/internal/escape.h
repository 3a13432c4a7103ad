// Field escaping for the ledger's tab-separated file: backslash, tab, newline and carriage return.
//
//   EscapeField("a\tb") == "a\\tb";  UnescapeField("a\\tb") == "a\tb"
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_INTERNAL_ESCAPE_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_INTERNAL_ESCAPE_H_

#include <optional>
#include <string>
#include <string_view>

namespace aftershock::ledger::internal {

std::string EscapeField(std::string_view raw);
// nullopt for an unknown escape or a trailing lone backslash.
std::optional<std::string> UnescapeField(std::string_view escaped);

}  // namespace aftershock::ledger::internal

#endif  // AFTERSHOCK_FRAMEWORK_LEDGER_INTERNAL_ESCAPE_H_
