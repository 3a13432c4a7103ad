#include "framework/stress/prometheus_text.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace aftershock::stress {
namespace {

bool IsNameStart(char c, bool metric) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (metric && c == ':');
}
bool IsNameChar(char c, bool metric) { return IsNameStart(c, metric) || (c >= '0' && c <= '9'); }

// A cursor over one line or selector; every Read* returns "" on success or what went wrong.
struct Cursor {
  std::string_view text;
  std::size_t pos = 0;

  bool AtEnd() const { return pos >= text.size(); }
  char Peek() const { return AtEnd() ? '\0' : text[pos]; }
  void SkipSpaces() {
    while (!AtEnd() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  }

  std::string ReadName(bool metric, std::string& out) {
    const std::size_t start = pos;
    if (AtEnd() || !IsNameStart(text[pos], metric)) {
      return std::string(metric ? "a metric" : "a label") + " name expected at column " + std::to_string(pos + 1);
    }
    while (!AtEnd() && IsNameChar(text[pos], metric)) ++pos;
    out = std::string(text.substr(start, pos - start));
    return "";
  }

  std::string ReadQuoted(std::string& out) {
    if (Peek() != '"') return "'\"' expected at column " + std::to_string(pos + 1);
    ++pos;
    out.clear();
    while (!AtEnd()) {
      const char c = text[pos++];
      if (c == '"') return "";
      if (c != '\\') {
        out += c;
        continue;
      }
      if (AtEnd()) break;
      const char e = text[pos++];
      if (e == 'n') {
        out += '\n';
      } else if (e == '\\' || e == '"') {
        out += e;
      } else {
        return std::string("bad escape \\") + e + " in a label value";
      }
    }
    return "unterminated label value";
  }

  // `{a="x",b="y"}` (optional; a trailing comma is allowed), sorted into `labels`.
  std::string ReadLabels(PromLabels& labels) {
    labels.clear();
    if (Peek() != '{') return "";
    ++pos;
    while (true) {
      SkipSpaces();
      if (Peek() == '}') {
        ++pos;
        break;
      }
      std::string name, value;
      if (std::string e = ReadName(false, name); !e.empty()) return e;
      SkipSpaces();
      if (Peek() != '=') return "'=' expected after label " + name;
      ++pos;
      SkipSpaces();
      if (std::string e = ReadQuoted(value); !e.empty()) return e + " (label " + name + ")";
      labels.emplace_back(std::move(name), std::move(value));
      SkipSpaces();
      if (Peek() == ',') {
        ++pos;
      } else if (Peek() != '}') {
        return "',' or '}' expected at column " + std::to_string(pos + 1);
      }
    }
    std::sort(labels.begin(), labels.end());
    for (std::size_t i = 1; i < labels.size(); ++i) {
      if (labels[i].first == labels[i - 1].first) return "label " + labels[i].first + " given twice";
    }
    return "";
  }

  std::string_view ReadToken() {
    SkipSpaces();
    const std::size_t start = pos;
    while (!AtEnd() && text[pos] != ' ' && text[pos] != '\t') ++pos;
    return text.substr(start, pos - start);
  }
};

bool ParseValue(std::string_view token, double& out) {
  if (token.empty()) return false;
  const std::string copy(token);
  errno = 0;
  char* end = nullptr;
  out = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size() && errno != EINVAL;
}

bool IsInteger(std::string_view token) {
  if (!token.empty() && token.front() == '-') token.remove_prefix(1);
  return !token.empty() && std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string Canonical(const std::string& name, const PromLabels& labels) {
  if (labels.empty()) return name;
  std::string out = name + "{";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ",";
    out += labels[i].first + "=\"";
    for (char c : labels[i].second) {
      if (c == '"' || c == '\\') out += '\\';
      out += c == '\n' ? std::string("\\n") : std::string(1, c);
    }
    out += "\"";
  }
  return out + "}";
}

}  // namespace

PromText ParsePrometheusText(std::string_view text) {
  PromText out;
  std::size_t line_number = 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    Cursor cursor{line};
    cursor.SkipSpaces();
    if (cursor.AtEnd() || cursor.Peek() == '#') continue;
    auto fail = [&](const std::string& why) {
      out.errors.push_back("line " + std::to_string(line_number) + ": " + why);
    };
    PromSample sample;
    if (std::string e = cursor.ReadName(true, sample.name); !e.empty()) {
      fail(e);
      continue;
    }
    if (std::string e = cursor.ReadLabels(sample.labels); !e.empty()) {
      fail(e);
      continue;
    }
    const std::string_view value = cursor.ReadToken();
    if (!ParseValue(value, sample.value)) {
      fail("bad value '" + std::string(value) + "' for " + sample.name);
      continue;
    }
    const std::string_view timestamp = cursor.ReadToken();
    if (!timestamp.empty() && !IsInteger(timestamp)) {
      fail("bad timestamp '" + std::string(timestamp) + "' for " + sample.name);
      continue;
    }
    if (!cursor.ReadToken().empty()) {
      fail("unexpected text after the value of " + sample.name);
      continue;
    }
    out.samples.push_back(std::move(sample));
  }
  return out;
}

bool MetricSelector::Matches(const PromSample& sample) const {
  return sample.name == name && sample.labels == labels;
}

std::optional<double> MetricSelector::Find(const std::vector<PromSample>& samples) const {
  for (const PromSample& s : samples) {
    if (Matches(s)) return s.value;
  }
  return std::nullopt;
}

MetricSelector ParseMetricSelector(std::string_view text) {
  Cursor cursor{text};
  MetricSelector selector;
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument("metric selector '" + std::string(text) + "': " + why);
  };
  cursor.SkipSpaces();
  if (std::string e = cursor.ReadName(true, selector.name); !e.empty()) fail(e);
  if (std::string e = cursor.ReadLabels(selector.labels); !e.empty()) fail(e);
  cursor.SkipSpaces();
  if (!cursor.AtEnd()) fail("unexpected text at column " + std::to_string(cursor.pos + 1));
  selector.text = Canonical(selector.name, selector.labels);
  return selector;
}

}  // namespace aftershock::stress
