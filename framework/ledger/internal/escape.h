// Field escaping for the ledger's tab-separated file: backslash, tab, newline and carriage return
// (and ';' inside a promise's attributes field).
//
//   EscapeField("a\tb") == "a\\tb";  UnescapeField("a\\tb") == "a\tb"
//   EscapeAttributeValue("a;b") == "a\\;b"
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_INTERNAL_ESCAPE_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_INTERNAL_ESCAPE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aftershock::ledger::internal {

std::string EscapeField(std::string_view raw);
// nullopt for an unknown escape or a trailing lone backslash.
std::optional<std::string> UnescapeField(std::string_view escaped);

// The same with ';' written as "\;" too: a promise's attributes are one field, `name=value;...`.
std::string EscapeAttributeValue(std::string_view raw);
std::optional<std::string> UnescapeAttributeValue(std::string_view escaped);
// Splits at every ';' that is not escaped (an escape's backslash and next character are kept).
std::vector<std::string_view> SplitAttributes(std::string_view field);

}  // namespace aftershock::ledger::internal

#endif  // AFTERSHOCK_FRAMEWORK_LEDGER_INTERNAL_ESCAPE_H_
