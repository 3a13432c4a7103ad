#include "framework/request_proxy/request_rule.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace aftershock::request_proxy {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<RuleAction, std::string_view>, 4> kActions{{
    {RuleAction::kStatus, "status"},
    {RuleAction::kDelayRequest, "delay_request"},
    {RuleAction::kDelayResponse, "delay_response"},
    {RuleAction::kTruncateBody, "truncate_body"},
}};

[[noreturn]] void Fail(const std::string& id, const std::string& what) {
  throw RuleError("rule '" + id + "': " + what);
}

bool IsDelay(RuleAction a) { return a == RuleAction::kDelayRequest || a == RuleAction::kDelayResponse; }

// The action-specific key a rule's JSON carries.
std::string_view ActionKey(RuleAction a) {
  switch (a) {
    case RuleAction::kStatus: return "status";
    case RuleAction::kDelayRequest:
    case RuleAction::kDelayResponse: return "delay_ms";
    case RuleAction::kTruncateBody: return "keep_bytes";
  }
  return "";
}

json RuleJson(const RequestRule& r) {
  json j = {{"id", r.id}, {"route", r.route}, {"share", r.share}, {"action", std::string(RuleActionName(r.action))}};
  switch (r.action) {
    case RuleAction::kStatus: j["status"] = r.status; break;
    case RuleAction::kDelayRequest:
    case RuleAction::kDelayResponse: j["delay_ms"] = r.delay.count(); break;
    case RuleAction::kTruncateBody: j["keep_bytes"] = r.keep_bytes; break;
  }
  if (r.ttl.count() > 0) j["ttl_ms"] = r.ttl.count();
  return j;
}

std::int64_t IntegerOf(const json& j, const std::string& id, const std::string& key) {
  if (!j.is_number_integer() && !j.is_number_unsigned()) Fail(id, "'" + key + "' must be an integer, got " + j.dump());
  return j.get<std::int64_t>();
}

RequestRule RuleFrom(const json& j) {
  if (!j.is_object()) throw RuleError("a rule must be a JSON object, got " + j.dump());
  std::string id = "?";
  if (const auto it = j.find("id"); it != j.end()) {
    if (!it->is_string()) throw RuleError("rule: 'id' must be a string, got " + it->dump());
    id = it->get<std::string>();
  } else {
    throw RuleError("rule: missing 'id'");
  }
  RequestRule r;
  r.id = id;
  const auto action_it = j.find("action");
  if (action_it == j.end()) Fail(id, "missing 'action' (status, delay_request, delay_response, truncate_body)");
  if (!action_it->is_string()) Fail(id, "'action' must be a string, got " + action_it->dump());
  const std::string action = action_it->get<std::string>();
  const auto known = std::find_if(kActions.begin(), kActions.end(), [&](const auto& a) { return a.second == action; });
  if (known == kActions.end()) Fail(id, "unknown action '" + action + "' (status, delay_request, delay_response, truncate_body)");
  r.action = known->first;
  bool has_action_key = false;
  for (const auto& [key, value] : j.items()) {
    if (key == "id" || key == "action") continue;
    if (key == "route") {
      if (!value.is_string()) Fail(id, "'route' must be a string, got " + value.dump());
      r.route = value.get<std::string>();
    } else if (key == "share") {
      if (!value.is_number()) Fail(id, "'share' must be a number, got " + value.dump());
      r.share = value.get<double>();
    } else if (key == "ttl_ms") {
      r.ttl = std::chrono::milliseconds(IntegerOf(value, id, key));
      if (r.ttl.count() <= 0) Fail(id, "'ttl_ms' must be > 0, got " + value.dump());
    } else if (key == ActionKey(r.action)) {
      has_action_key = true;
      const std::int64_t v = IntegerOf(value, id, key);
      if (r.action == RuleAction::kStatus) r.status = static_cast<int>(std::clamp<std::int64_t>(v, -1, 100000));
      else if (IsDelay(r.action)) r.delay = std::chrono::milliseconds(v);
      else {
        if (v < 0) Fail(id, "'keep_bytes' must be >= 0, got " + value.dump());
        r.keep_bytes = static_cast<std::size_t>(v);
      }
    } else {
      Fail(id, "key '" + key + "' is not a field of a " + action + " rule (it takes id, route, share, action, " +
                   std::string(ActionKey(r.action)) + ", ttl_ms)");
    }
  }
  if (!has_action_key) Fail(id, "a " + action + " rule needs '" + std::string(ActionKey(r.action)) + "'");
  ValidateRule(r);
  return r;
}

}  // namespace

std::string_view RuleActionName(RuleAction action) {
  for (const auto& [a, name] : kActions) {
    if (a == action) return name;
  }
  return "unknown";
}

void ValidateRule(const RequestRule& r) {
  const bool id_ok = !r.id.empty() && r.id.size() <= 64 && std::all_of(r.id.begin(), r.id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
  if (!id_ok) throw RuleError("rule '" + r.id + "': 'id' must be 1..64 of [A-Za-z0-9_.-]");
  if (r.route.empty() || r.route.front() != '/') Fail(r.id, "'route' must be a path prefix starting with '/', got '" + r.route + "'");
  if (!std::isfinite(r.share) || r.share <= 0 || r.share > 1) {
    Fail(r.id, "'share' must be in (0,1], got " + json(r.share).dump());
  }
  if (r.action == RuleAction::kStatus && (r.status < 100 || r.status > 599)) {
    Fail(r.id, "'status' must be an HTTP status 100..599, got " + std::to_string(r.status));
  }
  if (IsDelay(r.action) && (r.delay.count() < 1 || r.delay.count() > 600000)) {
    Fail(r.id, "'delay_ms' must be 1..600000, got " + std::to_string(r.delay.count()));
  }
  if (r.ttl.count() < 0) Fail(r.id, "'ttl_ms' must be > 0");
}

std::string RuleToJson(const RequestRule& rule) { return RuleJson(rule).dump(); }

RequestRule RuleFromJson(std::string_view text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw RuleError(std::string("rule: not JSON: ") + e.what());
  }
  return RuleFrom(j);
}

std::string RuleStatusesToJson(const std::vector<RuleStatus>& statuses) {
  json out = json::array();
  for (const auto& s : statuses) {
    out.push_back({{"rule", RuleJson(s.rule)}, {"matched", s.matched}, {"fired", s.fired},
                   {"lease_left_ms", s.lease_left.count()}});
  }
  return out.dump();
}

std::vector<RuleStatus> RuleStatusesFromJson(std::string_view text) {
  std::vector<RuleStatus> out;
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw RuleError(std::string("rule list: not JSON: ") + e.what());
  }
  if (!j.is_array()) throw RuleError("rule list: not a JSON array");
  for (const auto& item : j) {
    if (!item.is_object() || !item.contains("rule")) throw RuleError("rule list: an entry without 'rule'");
    RuleStatus s;
    s.rule = RuleFrom(item.at("rule"));
    s.matched = item.value("matched", std::uint64_t{0});
    s.fired = item.value("fired", std::uint64_t{0});
    s.lease_left = std::chrono::milliseconds(item.value("lease_left_ms", std::int64_t{0}));
    out.push_back(std::move(s));
  }
  return out;
}

RuleTable::RuleTable(std::uint64_t seed) : rng_(seed) {}

void RuleTable::Set(const RequestRule& rule) {
  ValidateRule(rule);
  const auto now = Clock::now();
  std::lock_guard lock(mu_);
  Entry& e = rules_[rule.id];
  if (!(e.rule == rule)) {
    e = Entry{.rule = rule, .matched = 0, .fired = 0, .expires = std::nullopt};
  }
  e.expires = rule.ttl.count() > 0 ? std::optional(now + rule.ttl) : std::nullopt;
}

bool RuleTable::Clear(const std::string& id) {
  std::lock_guard lock(mu_);
  return rules_.erase(id) > 0;
}

void RuleTable::ClearAll() {
  std::lock_guard lock(mu_);
  rules_.clear();
}

void RuleTable::DropExpiredLocked(Clock::time_point now) {
  std::erase_if(rules_, [now](const auto& kv) { return kv.second.expires && *kv.second.expires <= now; });
}

std::vector<RuleStatus> RuleTable::List() {
  const auto now = Clock::now();
  std::lock_guard lock(mu_);
  DropExpiredLocked(now);
  std::vector<RuleStatus> out;
  for (const auto& [id, e] : rules_) {
    RuleStatus s{.rule = e.rule, .matched = e.matched, .fired = e.fired};
    if (e.expires) s.lease_left = std::chrono::duration_cast<std::chrono::milliseconds>(*e.expires - now);
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<FiredRule> RuleTable::Match(std::string_view target) {
  const auto now = Clock::now();
  std::lock_guard lock(mu_);
  DropExpiredLocked(now);
  for (auto& [id, e] : rules_) {
    if (target.substr(0, e.rule.route.size()) != e.rule.route) continue;
    ++e.matched;
    const double draw = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
    if (!(draw < e.rule.share)) return std::nullopt;
    ++e.fired;
    return FiredRule{e.rule};
  }
  return std::nullopt;
}

}  // namespace aftershock::request_proxy
