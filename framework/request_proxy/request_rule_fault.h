// RequestRuleFault: a request-proxy rule as a chaos::Fault, so it gets a window on the chaos
// timeline, is reverted by the scheduler (at its end, on failure, on SIGINT) and proves both ways:
// applied = the proxy lists the rule (and, with confirm_fired, has fired it at least once);
// reverted = the proxy no longer lists it. A rule with a lease (ttl_ms) is dropped by the proxy on
// its own if the test dies without reverting; the fault renews it every third of the lease while
// applied.
//
//   RequestProxyClient client(proxy.control_address());
//   auto dead = std::make_shared<RequestRuleFault>("metadata-dead", client,
//       RequestRule{.id = "dead", .route = "/meta", .action = RuleAction::kStatus, .status = 503,
//                   .ttl = std::chrono::seconds(30)});
//   plan.faults.push_back({.at = 5s, .duration = 20s, .fault = dead});
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULE_FAULT_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULE_FAULT_H_

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "framework/chaos/fault.h"
#include "framework/request_proxy/control_api.h"
#include "framework/request_proxy/request_rule.h"

namespace aftershock::request_proxy {

class RequestRuleFault : public chaos::Fault {
 public:
  struct Options {
    bool confirm_fired = false;  // applied only once the rule has fired (traffic reached it)
  };
  // Throws RuleError for an invalid rule.
  RequestRuleFault(std::string name, RequestProxyClient client, RequestRule rule, Options options);
  RequestRuleFault(std::string name, RequestProxyClient client, RequestRule rule)
      : RequestRuleFault(std::move(name), std::move(client), std::move(rule), Options{}) {}
  ~RequestRuleFault() override;

  std::string name() const override { return name_; }
  std::string detail() const override;  // the rule's JSON and the proxy
  void Apply() override;
  void Revert() override;
  chaos::Confirmation ConfirmApplied(Clock::time_point deadline) override;
  chaos::Confirmation ConfirmReverted(Clock::time_point deadline) override;

 private:
  void StopRenewing();
  std::string name_;
  RequestProxyClient client_;
  RequestRule rule_;
  Options options_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool renewing_ = false;
  std::thread renewer_;
};

}  // namespace aftershock::request_proxy

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_REQUEST_RULE_FAULT_H_
