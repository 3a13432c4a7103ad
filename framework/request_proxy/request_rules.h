// Request rules: what the request proxy (framework/request_proxy/request_proxy.h) does to a share
// of the HTTP requests or gRPC calls on a route, and the thread-safe table the proxy consults for
// every request.
//
// A rule has an id, a protocol (HTTP or gRPC), a route (an HTTP path prefix such as "/search", or a
// gRPC full method or prefix such as "/pkg.Service/Method" or "/pkg.Service/"), a share in (0, 1],
// one action and an optional lease. The table answers "what fires for this request?": the first
// matching rule (in the order the rules were first set) counts a match, draws the share, and fires
// or not; no other rule is consulted.
//
//   RuleTable table(RuleTable::SeededRng(7));
//   table.Set({.id = "search-503", .protocol = Protocol::kHttp, .route = "/search", .share = 0.3,
//              .action = StatusAction{503}, .ttl = std::chrono::seconds(10)});
//   if (std::optional<RequestRule> fired = table.Match(Protocol::kHttp, "/search?q=x")) { ... }
//   nlohmann::json listed = RuleStatusListToJson(table.List());   // for GET /rules
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULES_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULES_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace aftershock::request_proxy {

enum class Protocol { kHttp, kGrpc };
std::string_view ProtocolName(Protocol protocol);  // "http", "grpc"

// Answer at once without touching the upstream: an HTTP status (200..599) on an HTTP rule, a
// gRPC status code (1..16, not OK) on a gRPC rule.
struct StatusAction {
  int code = 0;
  friend bool operator==(const StatusAction&, const StatusAction&) = default;
};
// Wait, then forward.
struct DelayRequestAction {
  std::chrono::milliseconds delay{0};  // 1..600000
  friend bool operator==(const DelayRequestAction&, const DelayRequestAction&) = default;
};
// Forward, then wait before answering.
struct DelayResponseAction {
  std::chrono::milliseconds delay{0};  // 1..600000
  friend bool operator==(const DelayResponseAction&, const DelayResponseAction&) = default;
};
// Forward, then cut the response body (HTTP) or the response message (gRPC) to `keep_bytes`.
struct TruncateBodyAction {
  std::int64_t keep_bytes = 0;  // 0..2^31-1
  friend bool operator==(const TruncateBodyAction&, const TruncateBodyAction&) = default;
};
using RuleAction = std::variant<StatusAction, DelayRequestAction, DelayResponseAction, TruncateBodyAction>;
std::string_view ActionName(const RuleAction& action);  // "status", "delay_request", ...

struct RequestRule {
  std::string id{};     // 1..64 of [A-Za-z0-9._-] (it is a path segment of the control API)
  Protocol protocol = Protocol::kHttp;
  std::string route{};  // starts with '/', 1..512 printable characters without spaces
  double share = 1.0;   // (0, 1]
  RuleAction action{};
  // Lease: the proxy drops the rule this long after it was (last) set; 0 = no lease.
  std::chrono::milliseconds ttl{0};  // 0..86400000
  friend bool operator==(const RequestRule&, const RequestRule&) = default;
};

// A rule that breaks the rules above; what() names the field, e.g.
// "rule 'r1': 'share' must be in (0, 1], got 1.5".
class RuleError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws RuleError naming the first bad field.
void ValidateRule(const RequestRule& rule);

// JSON for the control API: {"id","protocol","route","share","action", then "code" (status),
// "ms" (delays) or "keep_bytes" (truncate_body), and "ttl_ms" when there is a lease}.
nlohmann::json RuleToJson(const RequestRule& rule);
// Strict: unknown keys, keys that do not belong to the action, missing keys and wrong types throw
// RuleError naming the field; the result is validated.
RequestRule RuleFromJson(const nlohmann::json& json);

struct RuleStatus {
  RequestRule rule;
  std::uint64_t matched = 0;  // requests on the route while the rule was set
  std::uint64_t fired = 0;    // of those, the ones the rule acted on
  std::optional<std::chrono::milliseconds> expires_in;  // with a lease
};
nlohmann::json RuleStatusListToJson(const std::vector<RuleStatus>& rules);  // {"rules":[{...,"matched","fired"}]}
std::vector<RuleStatus> RuleStatusListFromJson(const nlohmann::json& json);

// The rules whose lease ran out (not renewed within its ttl, so the proxy stopped applying them):
// the fault they made was reverted mid-run by the proxy, not by the test (fault-lease-held).
struct LeaseExpiries {
  std::uint64_t count = 0;
  std::int64_t last_unix_ms = 0;  // 0: none yet
  std::string last{};             // "rule 'x' (503 on /api) expired: its 30000 ms lease was not renewed"
};

class RuleTable {
 public:
  using Rng = std::function<double()>;  // uniform in [0, 1); called under the table's lock
  static Rng SeededRng(std::uint64_t seed);  // deterministic (std::mt19937_64)
  static Rng RandomRng();                    // seeded from std::random_device

  RuleTable() : RuleTable(RandomRng()) {}
  explicit RuleTable(Rng rng);

  // Validates, then sets the rule. A new id goes last. A rule equal to the one already set under
  // the id only renews its lease (counters kept); a different one replaces it in place (counters
  // reset). Throws RuleError.
  void Set(RequestRule rule);
  bool Clear(const std::string& id);  // false when no such rule
  std::size_t ClearAll();             // how many were set
  // The rule that fires for one request on `route` (an HTTP target: the query is ignored), or
  // nullopt. Drops expired rules first.
  std::optional<RequestRule> Match(Protocol protocol, std::string_view route);
  // Every rule with its counters, in order. Drops expired rules first.
  std::vector<RuleStatus> List();
  std::size_t size();
  // Every lease that ran out since the table was made (counted when noticed, at the latest here).
  LeaseExpiries Expiries();

 private:
  struct Entry {
    RequestRule rule;
    std::uint64_t matched = 0;
    std::uint64_t fired = 0;
    std::chrono::steady_clock::time_point expires_at{};
  };
  void DropExpiredLocked(std::chrono::steady_clock::time_point now);

  std::mutex mu_;
  Rng rng_;
  std::vector<Entry> entries_;
  LeaseExpiries expiries_;
};

// True when `route` (a rule's) matches `path`: a prefix match on the path without its query.
bool RouteMatches(std::string_view route, std::string_view path);

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULES_H_
