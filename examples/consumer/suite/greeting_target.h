// GreetingTarget: the consumer's own service as an aftershock ScenarioTarget, and the one fault the
// example breaks it with (a maintenance window: every request answers 503 for its duration).
//
// A target makes the workload that drives the service and says what it promises. The greeting
// service stores nothing, so it makes no promises: the scenario judges availability (P1) and the
// guards; the promise gates report "N/A". A service that stores data returns a verifier
// instead (docs/writing-a-scenario.md).
//
//   consumer::GreetingService service;
//   consumer::GreetingTarget target(service.address());
//   RunAndJudge(target, {consumer::MaintenanceWindow(service, 3s, 1s)});
#ifndef CONSUMER_SUITE_GREETING_TARGET_H_
#define CONSUMER_SUITE_GREETING_TARGET_H_

#include <chrono>
#include <memory>
#include <string>

#include "framework/scenario/scenario_target.h"
#include "framework/chaos/chaos_scheduler.h"
#include "service/greeting_service.h"

namespace consumer {

class GreetingTarget : public aftershock::scenario::ScenarioTarget {
 public:
  GreetingTarget(std::string address, int max_connections) : address_(std::move(address)), max_connections_(max_connections) {}

  std::unique_ptr<aftershock::load::Workload> MakeWorkload(aftershock::ledger::PromiseLedger& ledger,
                                                            const aftershock::RunClock& clock) override;
  std::unique_ptr<aftershock::ledger::PromiseVerifier> MakeVerifier() override { return nullptr; }
  bool MakesNoPromises() const override { return true; }
  aftershock::load::OutcomePolicy Policy() const override;
  aftershock::ledger::LedgerHeader Identity() const override;

 private:
  std::string address_;
  int max_connections_;
};

// The service answers 503 from `at` for `duration`; the fault confirms it by asking the service.
aftershock::chaos::TimedFault MaintenanceWindow(GreetingService& service, std::chrono::milliseconds at,
                                                std::chrono::milliseconds duration);

}  // namespace consumer

#endif  // CONSUMER_SUITE_GREETING_TARGET_H_
