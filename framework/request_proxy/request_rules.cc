#include "framework/request_proxy/request_rules.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

namespace aftershock::request_proxy {
namespace {

using Json = nlohmann::json;

constexpr std::int64_t kMaxDelayMs = 600000;
constexpr std::int64_t kMaxTtlMs = 86400000;
constexpr std::int64_t kMaxKeepBytes = 2147483647;

std::string Where(const std::string& id) { return id.empty() ? "rule" : "rule '" + id + "'"; }

[[noreturn]] void Fail(const std::string& id, const std::string& what) { throw RuleError(Where(id) + ": " + what); }

std::string ShareText(double share) {
  char text[64];
  std::snprintf(text, sizeof text, "%g", share);
  return text;
}

std::int64_t IntField(const Json& json, const std::string& id, const char* key, std::int64_t lo, std::int64_t hi) {
  const Json& value = json.at(key);
  if (!value.is_number_integer()) Fail(id, std::string("'") + key + "' must be an integer, got " + value.dump());
  const std::int64_t out = value.get<std::int64_t>();
  if (out < lo || out > hi) {
    Fail(id, std::string("'") + key + "' must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
                 std::to_string(out));
  }
  return out;
}

std::string StringField(const Json& json, const std::string& id, const char* key) {
  if (!json.contains(key)) Fail(id, std::string("'") + key + "' is required");
  const Json& value = json.at(key);
  if (!value.is_string()) Fail(id, std::string("'") + key + "' must be a string, got " + value.dump());
  return value.get<std::string>();
}

}  // namespace

std::string_view ProtocolName(Protocol protocol) { return protocol == Protocol::kHttp ? "http" : "grpc"; }

std::string_view ActionName(const RuleAction& action) {
  switch (action.index()) {
    case 0: return "status";
    case 1: return "delay_request";
    case 2: return "delay_response";
    default: return "truncate_body";
  }
}

void ValidateRule(const RequestRule& rule) {
  const std::string& id = rule.id;
  if (id.empty()) throw RuleError("rule: 'id' is required (1..64 of A-Z a-z 0-9 . _ -)");
  if (id.size() > 64) Fail(id, "'id' must be at most 64 characters");
  for (char c : id) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) {
      Fail(id, "'id' may hold only A-Z a-z 0-9 . _ -");
    }
  }
  if (rule.route.empty() || rule.route.front() != '/') Fail(id, "'route' must start with '/', got '" + rule.route + "'");
  if (rule.route.size() > 512) Fail(id, "'route' must be at most 512 characters");
  for (char c : rule.route) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      Fail(id, "'route' must be printable ASCII without spaces, got '" + rule.route + "'");
    }
  }
  if (!std::isfinite(rule.share) || rule.share <= 0.0 || rule.share > 1.0) {
    Fail(id, "'share' must be in (0, 1], got " + ShareText(rule.share));
  }
  if (rule.ttl.count() < 0 || rule.ttl.count() > kMaxTtlMs) {
    Fail(id, "'ttl_ms' must be in 0.." + std::to_string(kMaxTtlMs) + ", got " + std::to_string(rule.ttl.count()));
  }
  if (const auto* status = std::get_if<StatusAction>(&rule.action)) {
    if (rule.protocol == Protocol::kHttp && (status->code < 200 || status->code > 599)) {
      Fail(id, "'code' must be an HTTP status in 200..599 for an http rule, got " + std::to_string(status->code));
    }
    if (rule.protocol == Protocol::kGrpc && (status->code < 1 || status->code > 16)) {
      Fail(id, "'code' must be a gRPC status code in 1..16 for a grpc rule, got " + std::to_string(status->code));
    }
  } else if (const auto* delay = std::get_if<DelayRequestAction>(&rule.action)) {
    if (delay->delay.count() < 1 || delay->delay.count() > kMaxDelayMs) {
      Fail(id, "'ms' must be in 1.." + std::to_string(kMaxDelayMs) + ", got " + std::to_string(delay->delay.count()));
    }
  } else if (const auto* delay_response = std::get_if<DelayResponseAction>(&rule.action)) {
    if (delay_response->delay.count() < 1 || delay_response->delay.count() > kMaxDelayMs) {
      Fail(id, "'ms' must be in 1.." + std::to_string(kMaxDelayMs) + ", got " +
                   std::to_string(delay_response->delay.count()));
    }
  } else if (const auto* truncate = std::get_if<TruncateBodyAction>(&rule.action)) {
    if (truncate->keep_bytes < 0 || truncate->keep_bytes > kMaxKeepBytes) {
      Fail(id, "'keep_bytes' must be in 0.." + std::to_string(kMaxKeepBytes) + ", got " +
                   std::to_string(truncate->keep_bytes));
    }
  }
}

Json RuleToJson(const RequestRule& rule) {
  Json json = {{"id", rule.id},
               {"protocol", std::string(ProtocolName(rule.protocol))},
               {"route", rule.route},
               {"share", rule.share},
               {"action", std::string(ActionName(rule.action))}};
  if (const auto* status = std::get_if<StatusAction>(&rule.action)) json["code"] = status->code;
  if (const auto* delay = std::get_if<DelayRequestAction>(&rule.action)) json["ms"] = delay->delay.count();
  if (const auto* delay = std::get_if<DelayResponseAction>(&rule.action)) json["ms"] = delay->delay.count();
  if (const auto* truncate = std::get_if<TruncateBodyAction>(&rule.action)) json["keep_bytes"] = truncate->keep_bytes;
  if (rule.ttl.count() > 0) json["ttl_ms"] = rule.ttl.count();
  return json;
}

RequestRule RuleFromJson(const Json& json) {
  if (!json.is_object()) throw RuleError("rule: must be a JSON object, got " + json.dump());
  std::string id;
  if (json.contains("id") && json.at("id").is_string()) id = json.at("id").get<std::string>();
  RequestRule rule;
  rule.id = StringField(json, id, "id");
  const std::string protocol = StringField(json, id, "protocol");
  if (protocol == "http") {
    rule.protocol = Protocol::kHttp;
  } else if (protocol == "grpc") {
    rule.protocol = Protocol::kGrpc;
  } else {
    Fail(id, "'protocol' must be \"http\" or \"grpc\", got '" + protocol + "'");
  }
  rule.route = StringField(json, id, "route");
  if (json.contains("share")) {
    const Json& share = json.at("share");
    if (!share.is_number()) Fail(id, "'share' must be a number, got " + share.dump());
    rule.share = share.get<double>();
  } else {
    Fail(id, "'share' is required");
  }
  const std::string action = StringField(json, id, "action");
  std::set<std::string> allowed = {"id", "protocol", "route", "share", "action", "ttl_ms"};
  auto required = [&](const char* key) {
    if (!json.contains(key)) Fail(id, "'" + std::string(key) + "' is required for action '" + action + "'");
    allowed.insert(key);
  };
  if (action == "status") {
    required("code");
    rule.action = StatusAction{static_cast<int>(IntField(json, id, "code", 0, 999))};
  } else if (action == "delay_request") {
    required("ms");
    rule.action = DelayRequestAction{std::chrono::milliseconds(IntField(json, id, "ms", 1, kMaxDelayMs))};
  } else if (action == "delay_response") {
    required("ms");
    rule.action = DelayResponseAction{std::chrono::milliseconds(IntField(json, id, "ms", 1, kMaxDelayMs))};
  } else if (action == "truncate_body") {
    required("keep_bytes");
    rule.action = TruncateBodyAction{IntField(json, id, "keep_bytes", 0, kMaxKeepBytes)};
  } else {
    Fail(id, "'action' must be one of status, delay_request, delay_response, truncate_body, got '" + action + "'");
  }
  if (json.contains("ttl_ms")) rule.ttl = std::chrono::milliseconds(IntField(json, id, "ttl_ms", 0, kMaxTtlMs));
  for (const auto& [key, value] : json.items()) {
    if (allowed.count(key) == 0) Fail(id, "unknown key '" + key + "' for action '" + action + "'");
  }
  ValidateRule(rule);
  return rule;
}

Json RuleStatusListToJson(const std::vector<RuleStatus>& rules) {
  Json list = Json::array();
  for (const RuleStatus& status : rules) {
    Json json = RuleToJson(status.rule);
    json["matched"] = status.matched;
    json["fired"] = status.fired;
    if (status.expires_in) json["expires_in_ms"] = status.expires_in->count();
    list.push_back(std::move(json));
  }
  return Json{{"rules", std::move(list)}};
}

std::vector<RuleStatus> RuleStatusListFromJson(const Json& json) {
  if (!json.is_object() || !json.contains("rules") || !json.at("rules").is_array()) {
    throw RuleError("rule list: expected {\"rules\": [...]}, got " + json.dump());
  }
  std::vector<RuleStatus> out;
  for (Json entry : json.at("rules")) {
    RuleStatus status;
    if (!entry.is_object()) throw RuleError("rule list: every entry must be an object, got " + entry.dump());
    status.matched = entry.value("matched", std::uint64_t{0});
    status.fired = entry.value("fired", std::uint64_t{0});
    if (entry.contains("expires_in_ms")) status.expires_in = std::chrono::milliseconds(entry.at("expires_in_ms").get<std::int64_t>());
    entry.erase("matched");
    entry.erase("fired");
    entry.erase("expires_in_ms");
    status.rule = RuleFromJson(entry);
    out.push_back(std::move(status));
  }
  return out;
}

bool RouteMatches(std::string_view route, std::string_view path) {
  const std::size_t query = path.find('?');
  if (query != std::string_view::npos) path = path.substr(0, query);
  return path.substr(0, route.size()) == route;
}

RuleTable::Rng RuleTable::SeededRng(std::uint64_t seed) {
  return [engine = std::mt19937_64(seed), dist = std::uniform_real_distribution<double>(0.0, 1.0)]() mutable {
    return dist(engine);
  };
}

RuleTable::Rng RuleTable::RandomRng() {
  std::random_device device;
  return SeededRng((static_cast<std::uint64_t>(device()) << 32) ^ device());
}

RuleTable::RuleTable(Rng rng) : rng_(std::move(rng)) {
  if (!rng_) throw std::invalid_argument("RuleTable: the rng must not be empty");
}

void RuleTable::Set(RequestRule rule) {
  ValidateRule(rule);
  const auto now = std::chrono::steady_clock::now();
  const auto expires_at =
      rule.ttl.count() > 0 ? now + rule.ttl : std::chrono::steady_clock::time_point::max();
  std::lock_guard<std::mutex> lock(mu_);
  DropExpiredLocked(now);
  for (Entry& entry : entries_) {
    if (entry.rule.id != rule.id) continue;
    if (!(entry.rule == rule)) entry = Entry{.rule = std::move(rule)};
    entry.expires_at = expires_at;
    return;
  }
  entries_.push_back(Entry{.rule = std::move(rule), .expires_at = expires_at});
}

bool RuleTable::Clear(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto before = entries_.size();
  std::erase_if(entries_, [&](const Entry& e) { return e.rule.id == id; });
  return entries_.size() != before;
}

std::size_t RuleTable::ClearAll() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(entries_, {}).size();
}

std::optional<RequestRule> RuleTable::Match(Protocol protocol, std::string_view route) {
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.empty()) return std::nullopt;
  DropExpiredLocked(std::chrono::steady_clock::now());
  for (Entry& entry : entries_) {
    if (entry.rule.protocol != protocol || !RouteMatches(entry.rule.route, route)) continue;
    ++entry.matched;
    // share 1 always fires; otherwise one draw per matched request.
    if (entry.rule.share >= 1.0 || rng_() < entry.rule.share) {
      ++entry.fired;
      return entry.rule;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::vector<RuleStatus> RuleTable::List() {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  DropExpiredLocked(now);
  std::vector<RuleStatus> out;
  for (const Entry& entry : entries_) {
    RuleStatus status{.rule = entry.rule, .matched = entry.matched, .fired = entry.fired, .expires_in = std::nullopt};
    if (entry.rule.ttl.count() > 0) {
      status.expires_in = std::chrono::duration_cast<std::chrono::milliseconds>(entry.expires_at - now);
    }
    out.push_back(std::move(status));
  }
  return out;
}

std::size_t RuleTable::size() {
  std::lock_guard<std::mutex> lock(mu_);
  DropExpiredLocked(std::chrono::steady_clock::now());
  return entries_.size();
}

void RuleTable::DropExpiredLocked(std::chrono::steady_clock::time_point now) {
  std::erase_if(entries_, [&](const Entry& e) {
    if (e.expires_at > now) return false;
    ++expiries_.count;
    expiries_.last_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch() - (now - e.expires_at))
                                 .count();
    expiries_.last = "rule '" + e.rule.id + "' on " + e.rule.route + " expired: its " +
                     std::to_string(e.rule.ttl.count()) + " ms lease was not renewed";
    return true;
  });
}

LeaseExpiries RuleTable::Expiries() {
  std::lock_guard<std::mutex> lock(mu_);
  DropExpiredLocked(std::chrono::steady_clock::now());
  return expiries_;
}

}  // namespace aftershock::request_proxy
