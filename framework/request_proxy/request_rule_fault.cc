#include "framework/request_proxy/request_rule_fault.h"

#include <cstdio>
#include <utility>

namespace aftershock::request_proxy {

RequestRuleFault::RequestRuleFault(std::string name, RequestProxyClient client, RequestRule rule, Options options)
    : name_(std::move(name)), client_(std::move(client)), rule_(std::move(rule)), options_(options) {
  if (name_.empty()) throw std::invalid_argument("RequestRuleFault: 'name' must not be empty");
  ValidateRule(rule_);
}

RequestRuleFault::~RequestRuleFault() { StopRenewing(); }

std::string RequestRuleFault::detail() const {
  char share[32];
  std::snprintf(share, sizeof share, "%g", rule_.share);
  std::string action(ActionName(rule_.action));
  if (const auto* s = std::get_if<StatusAction>(&rule_.action)) action += " " + std::to_string(s->code);
  if (const auto* d = std::get_if<DelayRequestAction>(&rule_.action)) action += " " + std::to_string(d->delay.count()) + " ms";
  if (const auto* d = std::get_if<DelayResponseAction>(&rule_.action)) action += " " + std::to_string(d->delay.count()) + " ms";
  if (const auto* t = std::get_if<TruncateBodyAction>(&rule_.action)) action += " " + std::to_string(t->keep_bytes) + " bytes";
  return std::string(ProtocolName(rule_.protocol)) + " " + rule_.route + " share " + share + ": " + action;
}

void RequestRuleFault::Apply() {
  StopRenewing();
  client_.SetRule(rule_);
  if (rule_.ttl.count() <= 0) return;
  const auto every = std::max(std::chrono::milliseconds(1), rule_.ttl / 3);
  std::lock_guard<std::mutex> lock(mu_);
  renewing_ = true;
  renewer_ = std::thread([this, every] {
    std::unique_lock<std::mutex> lock(mu_);
    // Bounded by the lease's maximum (one day) over the renewal period; Revert ends it first.
    for (long long round = 0; round < 86400000LL / every.count() + 1; ++round) {
      if (cv_.wait_for(lock, every, [this] { return !renewing_; })) return;
      lock.unlock();
      try {
        client_.SetRule(rule_);
      } catch (const std::exception&) {
        // The next round retries; the lease drops the rule if the proxy stays unreachable.
      }
      lock.lock();
    }
  });
}

void RequestRuleFault::StopRenewing() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    renewing_ = false;
  }
  cv_.notify_all();
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
        const std::optional<RuleStatus> status = client_.FindRule(rule_.id);
        if (!status) return std::nullopt;
        if (options_.confirm_fired && status->fired == 0) return std::nullopt;
        return "rule '" + rule_.id + "' set, matched " + std::to_string(status->matched) + ", fired " +
               std::to_string(status->fired);
      },
      options_.confirm_fired ? "rule '" + rule_.id + "' never fired" : "the proxy never listed rule '" + rule_.id + "'",
      std::chrono::milliseconds(50));
}

chaos::Confirmation RequestRuleFault::ConfirmReverted(Clock::time_point deadline) {
  return chaos::PollUntil(
      deadline,
      [this]() -> std::optional<std::string> {
        if (client_.FindRule(rule_.id)) return std::nullopt;
        return "rule '" + rule_.id + "' no longer listed";
      },
      "the proxy still lists rule '" + rule_.id + "'", std::chrono::milliseconds(50));
}

}  // namespace aftershock::request_proxy
