#include "framework/ledger/internal/escape.h"

namespace aftershock::ledger::internal {

namespace {

std::string Escape(std::string_view raw, bool semicolon) {
  std::string out;
  out.reserve(raw.size());
  for (char c : raw) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case ';':
        if (semicolon) out += '\\';
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

std::optional<std::string> Unescape(std::string_view escaped, bool semicolon) {
  std::string out;
  out.reserve(escaped.size());
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    const char c = escaped[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i + 1 == escaped.size()) return std::nullopt;
    switch (escaped[++i]) {
      case '\\': out += '\\'; break;
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case ';':
        if (!semicolon) return std::nullopt;
        out += ';';
        break;
      default: return std::nullopt;
    }
  }
  return out;
}

}  // namespace

std::string EscapeField(std::string_view raw) { return Escape(raw, false); }
std::optional<std::string> UnescapeField(std::string_view escaped) { return Unescape(escaped, false); }
std::string EscapeAttributeValue(std::string_view raw) { return Escape(raw, true); }
std::optional<std::string> UnescapeAttributeValue(std::string_view escaped) { return Unescape(escaped, true); }

std::vector<std::string_view> SplitAttributes(std::string_view field) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\') {
      ++i;  // the escaped character, whatever it is
    } else if (field[i] == ';') {
      parts.push_back(field.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(field.substr(start));
  return parts;
}

}  // namespace aftershock::ledger::internal
