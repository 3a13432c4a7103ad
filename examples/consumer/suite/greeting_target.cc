#include "suite/greeting_target.h"

#include <optional>
#include <utility>

#include "framework/chaos/fault.h"
#include "framework/load/http_workload.h"

namespace consumer {

namespace al = aftershock::load;

std::unique_ptr<al::Workload> GreetingTarget::MakeWorkload(aftershock::ledger::PromiseLedger&,
                                                          const aftershock::RunClock&) {
  al::HttpWorkloadOptions o;
  o.target = address_;
  o.path = "/greeting";
  o.max_connections = max_connections_;
  o.require_body = true;  // a 200 without its greeting is not a success
  return std::make_unique<al::HttpWorkload>(std::move(o));
}

// 2xx is success; nothing is retried (a client of this service does not retry either).
al::OutcomePolicy GreetingTarget::Policy() const { return al::HttpOutcomePolicy(); }

aftershock::ledger::LedgerHeader GreetingTarget::Identity() const {
  return {{"target.kind", "greeting-service"}, {"target.addresses", address_}};
}

aftershock::chaos::TimedFault MaintenanceWindow(GreetingService& service, std::chrono::milliseconds at,
                                                std::chrono::milliseconds duration) {
  namespace chaos = aftershock::chaos;
  GreetingService* s = &service;
  auto confirm = [s](bool wanted, aftershock::Clock::time_point deadline) {
    return chaos::PollUntil(
        deadline,
        [s, wanted]() -> std::optional<std::string> {
          if (s->maintenance() != wanted) return std::nullopt;
          return wanted ? "the service reports maintenance" : "the service reports no maintenance";
        },
        wanted ? "the service never reported maintenance" : "the service still reports maintenance");
  };
  return {.at = at,
          .duration = duration,
          .fault = std::make_shared<chaos::LambdaFault>(
              "maintenance", "every request answers 503",
              chaos::LambdaFault::Callables{
                  .apply = [s] { s->SetMaintenance(true); },
                  .revert = [s] { s->SetMaintenance(false); },
                  .confirm_applied = [confirm](aftershock::Clock::time_point d) { return confirm(true, d); },
                  .confirm_reverted = [confirm](aftershock::Clock::time_point d) { return confirm(false, d); }})};
}

}  // namespace consumer
