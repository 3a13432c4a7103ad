#include "framework/upstream_faults/fault_spec.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <system_error>

namespace aftershock::upstream_faults {
namespace {

using std::string_view_literals::operator""sv;

constexpr std::array<std::pair<FaultKind, std::string_view>, 6> kNames{{
    {FaultKind::kUpstreamLatency, "upstream_latency"},
    {FaultKind::kUpstreamError, "upstream_error"},
    {FaultKind::kUpstreamPartial, "upstream_partial"},
    {FaultKind::kDbLock, "db_lock"},
    {FaultKind::kCachePoison, "cache_poison"},
    {FaultKind::kClockSkew, "clock_skew"},
}};

// Bounds that catch a typo (an extra zero) rather than limit anyone: an hour of delay, a year of skew.
constexpr std::int64_t kMaxMs = 3'600'000;
constexpr std::int64_t kMaxSkewSeconds = 366LL * 24 * 3600;
constexpr std::int64_t kMaxKeep = 1'000'000;

std::string_view Trim(std::string_view s) {
  constexpr auto kBlank = " \t\r\n"sv;
  const auto first = s.find_first_not_of(kBlank);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kBlank) - first + 1);
}

// Splits on `sep`, keeping empty pieces (the caller rejects them with their position).
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

[[noreturn]] void Fail(std::size_t index, const std::string& what) {
  throw FaultSpecError("fault " + std::to_string(index) + ": " + what);
}

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

std::int64_t ParseInteger(std::size_t index, std::string_view key, std::string_view value, std::int64_t min,
                          std::int64_t max, std::string_view must) {
  std::int64_t v = 0;
  const char* begin = value.data();
  const char* end = value.data() + value.size();
  if (!value.empty() && *begin == '+') ++begin;  // "+30" reads as 30, as a skew is naturally written
  const auto [ptr, ec] = std::from_chars(begin, end, v);
  if (value.empty() || ec != std::errc{} || ptr != end || v < min || v > max) {
    Fail(index, Quoted(key) + " must be " + std::string(must) + ", got " + Quoted(value));
  }
  return v;
}

double ParseRate(std::size_t index, std::string_view value) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc{} || ptr != value.data() + value.size() || !std::isfinite(v) || v < 0 ||
      v > 1) {
    Fail(index, "'rate' must be a number in [0,1], got " + Quoted(value));
  }
  return v;
}

// The keys each kind takes besides 'fault' and 'rate', and which of them are required.
struct KeyRule {
  std::string_view key;
  bool required;
};
std::vector<KeyRule> KeysOf(FaultKind kind) {
  switch (kind) {
    case FaultKind::kUpstreamLatency: return {{"ms", true}, {"jitter_ms", false}};
    case FaultKind::kUpstreamError: return {{"code", true}};
    case FaultKind::kUpstreamPartial: return {{"keep", false}};
    case FaultKind::kDbLock: return {{"ms", true}};
    case FaultKind::kCachePoison: return {};
    case FaultKind::kClockSkew: return {{"skew_s", true}};
  }
  return {};
}

std::string AllowedKeys(FaultKind kind) {
  std::string out = "fault, rate";
  for (const auto& rule : KeysOf(kind)) out += ", " + std::string(rule.key);
  return out;
}

FaultSpec ParseOne(std::size_t index, std::string_view text) {
  std::vector<std::pair<std::string_view, std::string_view>> fields;
  for (std::string_view raw : Split(text, ';')) {
    const std::string_view field = Trim(raw);
    if (field.empty()) Fail(index, "empty field (two ';' in a row, or a ';' at an end)");
    const auto eq = field.find('=');
    if (eq == std::string_view::npos) Fail(index, "field " + Quoted(field) + " is not key=value");
    const std::string_view key = Trim(field.substr(0, eq));
    const std::string_view value = Trim(field.substr(eq + 1));
    if (key.empty()) Fail(index, "field " + Quoted(field) + " has no key");
    for (const auto& [seen, unused] : fields) {
      if (seen == key) Fail(index, "duplicate key " + Quoted(key));
    }
    fields.emplace_back(key, value);
  }

  const std::string_view* name = nullptr;
  for (const auto& [key, value] : fields) {
    if (key == "fault") name = &value;
  }
  if (name == nullptr) Fail(index, "missing 'fault=' (one of upstream_latency, upstream_error, "
                                   "upstream_partial, db_lock, cache_poison, clock_skew)");
  const auto kind = FaultKindFromName(*name);
  if (!kind) Fail(index, "unknown fault " + Quoted(*name));

  FaultSpec spec;
  spec.kind = *kind;
  const auto rules = KeysOf(*kind);
  for (const auto& [key, value] : fields) {
    if (key == "fault") continue;
    if (key == "rate") {
      spec.rate = ParseRate(index, value);
      continue;
    }
    bool allowed = false;
    for (const auto& rule : rules) allowed = allowed || rule.key == key;
    if (!allowed) {
      Fail(index, "key " + Quoted(key) + " is not a field of " + std::string(*name) + " (it takes " +
                      AllowedKeys(*kind) + ")");
    }
    if (key == "ms") {
      spec.ms = std::chrono::milliseconds(ParseInteger(index, key, value, 1, kMaxMs, "a positive integer (<= 3600000)"));
    } else if (key == "jitter_ms") {
      spec.jitter = std::chrono::milliseconds(ParseInteger(index, key, value, 0, kMaxMs, "an integer >= 0"));
    } else if (key == "code") {
      const auto code = ParseInteger(index, key, value, 100, 599, "an HTTP status 500..599 or 429");
      if (code != 429 && code < 500) Fail(index, "'code' must be an HTTP status 500..599 or 429, got " + Quoted(value));
      spec.code = static_cast<int>(code);
    } else if (key == "keep") {
      spec.keep = static_cast<int>(ParseInteger(index, key, value, 0, kMaxKeep, "an integer >= 0"));
    } else if (key == "skew_s") {
      const auto skew = ParseInteger(index, key, value, -kMaxSkewSeconds, kMaxSkewSeconds,
                                     "a signed integer of seconds (|skew| <= 366 days)");
      if (skew == 0) Fail(index, "'skew_s' must not be 0 (a skew of nothing is no fault)");
      spec.skew = std::chrono::seconds(skew);
    }
  }
  for (const auto& rule : rules) {
    if (!rule.required) continue;
    bool present = false;
    for (const auto& [key, unused] : fields) present = present || key == rule.key;
    if (!present) Fail(index, std::string(*name) + " needs " + Quoted(rule.key));
  }
  if (spec.jitter > spec.ms && spec.kind == FaultKind::kUpstreamLatency) {
    Fail(index, "'jitter_ms' (" + std::to_string(spec.jitter.count()) + ") must not exceed 'ms' (" +
                    std::to_string(spec.ms.count()) + ")");
  }
  return spec;
}

std::string FormatRate(double rate) {
  std::array<char, 64> buf{};
  const auto [ptr, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), rate);  // shortest round trip
  return ec == std::errc{} ? std::string(buf.data(), ptr) : std::to_string(rate);
}

}  // namespace

std::string_view FaultKindName(FaultKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

std::optional<FaultKind> FaultKindFromName(std::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

FaultSpecList ParseFaultSpec(std::string_view text) {
  FaultSpecList list;
  if (Trim(text).empty()) return list;
  std::size_t index = 0;
  for (std::string_view raw : Split(text, ',')) {
    ++index;
    const std::string_view one = Trim(raw);
    if (one.empty()) Fail(index, "empty fault (two ',' in a row, or a ',' at an end)");
    list.faults.push_back(ParseOne(index, one));
  }
  return list;
}

std::string FormatFaultSpec(const FaultSpec& f) {
  std::string out = "fault=" + std::string(FaultKindName(f.kind));
  if (f.rate != 1.0) out += ";rate=" + FormatRate(f.rate);
  switch (f.kind) {
    case FaultKind::kUpstreamLatency:
      out += ";ms=" + std::to_string(f.ms.count());
      if (f.jitter.count() != 0) out += ";jitter_ms=" + std::to_string(f.jitter.count());
      break;
    case FaultKind::kUpstreamError: out += ";code=" + std::to_string(f.code); break;
    case FaultKind::kUpstreamPartial:
      if (f.keep != 1) out += ";keep=" + std::to_string(f.keep);
      break;
    case FaultKind::kDbLock: out += ";ms=" + std::to_string(f.ms.count()); break;
    case FaultKind::kCachePoison: break;
    case FaultKind::kClockSkew: out += ";skew_s=" + std::to_string(f.skew.count()); break;
  }
  return out;
}

std::string FormatFaultSpec(const FaultSpecList& list) {
  std::string out;
  for (const auto& f : list.faults) {
    if (!out.empty()) out += ',';
    out += FormatFaultSpec(f);
  }
  return out;
}

}  // namespace aftershock::upstream_faults
