// RequestRuleFault: a chaos::Fault that sets one request rule on a running request proxy while it
// is applied (PUT /rules/<id>) and clears it on revert (DELETE /rules/<id>). ConfirmApplied: the
// proxy lists the rule (and, with confirm_fired, the rule has fired at least once);
// ConfirmReverted: the proxy no longer lists it.
//
// A rule with a lease (ttl) is renewed while applied, every ttl/3 (a PUT of the same rule renews
// the lease and keeps the counters), so a killed test leaves the fault behind for at most one ttl.
//
//   auto fault = std::make_shared<RequestRuleFault>("search-503", proxy.client(),
//       RequestRule{.id = "search-503", .route = "/search", .share = 0.3, .action = StatusAction{503},
//                   .ttl = std::chrono::seconds(5)});
//   plan.push_back({.at = 10s, .duration = 20s, .fault = fault});
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULE_FAULT_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULE_FAULT_H_

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "framework/chaos/fault.h"
#include "framework/request_proxy/request_proxy_client.h"
#include "framework/request_proxy/request_rules.h"

namespace aftershock::request_proxy {

class RequestRuleFault : public chaos::Fault {
 public:
  struct Options {
    bool confirm_fired = false;  // ConfirmApplied also waits until the rule has fired
  };
  // Validates the rule (RuleError naming the field); throws std::invalid_argument for an empty name.
  RequestRuleFault(std::string name, RequestProxyClient client, RequestRule rule, Options options);
  RequestRuleFault(std::string name, RequestProxyClient client, RequestRule rule)
      : RequestRuleFault(std::move(name), std::move(client), std::move(rule), Options{}) {}
  ~RequestRuleFault() override;

  std::string name() const override { return name_; }
  std::string detail() const override;  // "http /search share 0.3: status 503"
  void Apply() override;
  void Revert() override;
  chaos::Confirmation ConfirmApplied(Clock::time_point deadline) override;
  chaos::Confirmation ConfirmReverted(Clock::time_point deadline) override;

  const RequestRule& rule() const { return rule_; }

 private:
  void StopRenewing();

  std::string name_;
  RequestProxyClient client_;
  RequestRule rule_;
  Options options_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool renewing_ = false;
  std::thread renewer_;
};

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULE_FAULT_H_
