#include "framework/config/internal/values.h"

namespace aftershock::config::internal {
namespace {

std::string_view Expected(ValueKind kind) {
  switch (kind) {
    case ValueKind::kNumber: return "a number";
    case ValueKind::kDuration: return "a duration";
    case ValueKind::kInteger: return "an integer";
  }
  return "a value";
}

}  // namespace

double ReadValue(const std::string& path, const MapEntry& entry, ValueKind kind, Bound bound) {
  const std::string text = ScalarText(path, entry, Expected(kind));
  ParsedKnob parsed = ParseValue(kind, bound, text);
  if (!parsed.value) {
    Fail(path, LineOf(entry.value, entry.line),
         "key '" + entry.key + "': '" + text + "' " + parsed.problem);
  }
  return *parsed.value;
}

std::string ReadName(const std::string& path, const MapEntry& entry) {
  std::string text = ScalarText(path, entry, "a name");
  if (text.empty()) Fail(path, entry.line, "key '" + entry.key + "' must not be empty");
  return text;
}

}  // namespace aftershock::config::internal
