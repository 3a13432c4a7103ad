#include "framework/request_proxy/request_rule_fault.h"

#include <algorithm>

namespace aftershock::request_proxy {

RequestRuleFault::RequestRuleFault(std::string name, RequestProxyClient client, RequestRule rule, Options options)
    : name_(std::move(name)), client_(std::move(client)), rule_(std::move(rule)), options_(options) {
  ValidateRule(rule_);
}

RequestRuleFault::~RequestRuleFault() { StopRenewing(); }

std::string RequestRuleFault::detail() const { return "request proxy " + client_.control() + ": " + RuleToJson(rule_); }

void RequestRuleFault::Apply() {
  client_.SetRule(rule_);
  if (rule_.ttl.count() <= 0) return;
  StopRenewing();
  std::lock_guard lock(mu_);
  renewing_ = true;
  const auto every = std::max(rule_.ttl / 3, std::chrono::milliseconds(1));
  renewer_ = std::thread([this, every] {
    std::unique_lock lock(mu_);
    // Bounded by the fault's window: Revert (or destruction) ends it.
    while (renewing_) {
      if (wake_.wait_for(lock, every, [this] { return !renewing_; })) break;
      lock.unlock();
      try {
        client_.SetRule(rule_);  // the same rule again: only its lease is renewed
      } catch (const std::exception&) {
        // The proxy will drop the rule when the lease runs out: a missed renewal is no residue.
      }
      lock.lock();
    }
  });
}

void RequestRuleFault::StopRenewing() {
  {
    std::lock_guard lock(mu_);
    renewing_ = false;
  }
  wake_.notify_all();
  if (renewer_.joinable()) renewer_.join();
}

void RequestRuleFault::Revert() {
  StopRenewing();
  client_.ClearRule(rule_.id);
}

chaos::Confirmation RequestRuleFault::ConfirmApplied(Clock::time_point deadline) {
  return chaos::PollUntil(
      deadline,
      [this]() -> std::optional<std::string> {
        for (const RuleStatus& s : client_.ListRules()) {
          if (s.rule.id != rule_.id) continue;
          if (options_.confirm_fired && s.fired == 0) return std::nullopt;
          return "the proxy lists rule '" + rule_.id + "' (" + std::to_string(s.fired) + " fired of " +
                 std::to_string(s.matched) + " matched)";
        }
        return std::nullopt;
      },
      options_.confirm_fired ? "the proxy never fired rule '" + rule_.id + "'"
                             : "the proxy never listed rule '" + rule_.id + "'");
}

chaos::Confirmation RequestRuleFault::ConfirmReverted(Clock::time_point deadline) {
  return chaos::PollUntil(
      deadline,
      [this]() -> std::optional<std::string> {
        for (const RuleStatus& s : client_.ListRules()) {
          if (s.rule.id == rule_.id) return std::nullopt;
        }
        return "the proxy no longer lists rule '" + rule_.id + "'";
      },
      "the proxy still lists rule '" + rule_.id + "'");
}

}  // namespace aftershock::request_proxy
