// RequestRule and RuleTable: what the HTTP fault proxy (http_fault_proxy.h) does to a share of the
// requests on a route, for a service a user cannot modify (seed 002's upstream faults on the wire,
// where the TCP fault proxy only sees bytes). A rule matches a path prefix and fires on a share of
// the matching requests; the first matching rule (in id order) decides.
//
//   RuleTable table(/*seed=*/7);
//   table.Set({.id = "meta-dead", .route = "/meta", .share = 1.0,
//              .action = RuleAction::kStatus, .status = 503});
//   if (auto fired = table.Match("/meta?ids=1,2")) { ... fired->action ... }
//   table.Clear("meta-dead");
//
// Rules travel as JSON on the control API (docs/request-proxy.md):
//   {"id":"meta-slow","route":"/meta","share":0.5,"action":"delay_response","delay_ms":6000,"ttl_ms":60000}
// A rule may carry a lease (ttl_ms): the table drops it once the lease runs out unless it is set
// again, so a test that was killed cannot leave a fault behind in a proxy that outlives it.
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULE_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULE_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace aftershock::request_proxy {

enum class RuleAction {
  kStatus,         // answer `status` at once; the upstream never sees the request
  kDelayRequest,   // wait delay, then forward
  kDelayResponse,  // forward, then wait delay before answering
  kTruncateBody,   // forward, then cut the response body to keep_bytes (Content-Length adjusted)
};
std::string_view RuleActionName(RuleAction action);  // "status", "delay_request", ...

struct RequestRule {
  std::string id;                        // [A-Za-z0-9_.-]{1,64}
  std::string route = "/";               // a path prefix, starting with '/'
  double share = 1.0;                    // (0, 1]
  RuleAction action = RuleAction::kStatus;
  int status = 503;                      // kStatus: 100..599
  std::chrono::milliseconds delay{0};    // kDelayRequest, kDelayResponse: 1..600000
  std::size_t keep_bytes = 0;            // kTruncateBody: the body bytes kept
  std::chrono::milliseconds ttl{0};      // the lease; 0 = none
  friend bool operator==(const RequestRule&, const RequestRule&) = default;
};

class RuleError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws RuleError naming the field ("rule 'x': 'share' must be in (0,1], got 1.5").
void ValidateRule(const RequestRule& rule);
// JSON text of a rule, and back (strict: unknown keys, wrong types, a missing id or action, and
// fields the action does not take are RuleErrors naming the key).
std::string RuleToJson(const RequestRule& rule);
RequestRule RuleFromJson(std::string_view json);

// A rule as listed, with what it has done since it was set.
struct RuleStatus {
  RequestRule rule;
  std::uint64_t matched = 0;  // requests on its route while it was the first match
  std::uint64_t fired = 0;    // of those, the ones it acted on
  std::chrono::milliseconds lease_left{0};  // 0 without a lease
};
std::string RuleStatusesToJson(const std::vector<RuleStatus>& statuses);
std::vector<RuleStatus> RuleStatusesFromJson(std::string_view json);

// What fired for one request.
struct FiredRule {
  RequestRule rule;
};

// The rules of one proxy. Thread-safe.
class RuleTable {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RuleTable(std::uint64_t seed = std::random_device{}());

  // Validates, then sets or replaces the rule with its id (counters reset on replace unless the
  // rule is unchanged: setting the same rule again only renews its lease).
  void Set(const RequestRule& rule);
  bool Clear(const std::string& id);  // false: no such rule
  void ClearAll();
  std::vector<RuleStatus> List();
  // The first live rule whose route prefixes `target` (the request target, path and query), drawn
  // at its share; nullopt when none matches or the draw says no.
  std::optional<FiredRule> Match(std::string_view target);

 private:
  struct Entry {
    RequestRule rule;
    std::uint64_t matched = 0, fired = 0;
    std::optional<Clock::time_point> expires;
  };
  void DropExpiredLocked(Clock::time_point now);

  std::mutex mu_;
  std::map<std::string, Entry> rules_;
  std::mt19937_64 rng_;
};

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULE_H_
