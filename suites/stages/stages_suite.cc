// The stages suite (seed 001): warm-up, sustained and overload stages of HTTP load against the work
// reference service, its failure rate raised on cue, judged not on the success ratio but on whether
// the alert chain (real Prometheus and Alertmanager) fires, reaches the test receiver, opens an
// incident and resolves it after the reset, while nothing reaches the production receiver.
//
// The run fails when the attack could not run (pre-flight), did not finish, or a gate is red. The
// alert chain is five of the suite's own gates (framework/alerting/alert_chain_gates.h: alert-fired,
// alert-routed, incident-opened, incident-resolved, production-untouched), evaluated after the run
// (waiting, bounded, for the incident to resolve) and judged with the built-in ones, in verdict.txt,
// failures.txt and the JUnit properties: the guards (traffic served, shedding, the generator held its
// schedule) and the availability budgets of the manifest (the service may black out only for as long
// as the overload stage lasts). The verdict scenarios name the chain gates their seeded defect must
// turn red. No time-to-recover is measured from the trigger's reset (it falls inside the overload
// stage; the gate says N/A); the alert resolving is the recovery this suite judges. The overload
// stage's success ratio is reported (stage report), not gated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "fixtures/resilience_scenario.h"
#include "fixtures/targets/work/work_process.h"
#include "framework/alerting/alert_chain_gates.h"
#include "framework/alerting/alert_chain_verdict.h"
#include "framework/alerting/alerting_stack.h"
#include "framework/alerting/post_run_summary.h"
#include "framework/gtest/flags.h"
#include "framework/gtest/interrupt.h"
#include "framework/load/http_workload.h"
#include "framework/process/fd_limit.h"

namespace aftershock::suites {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

milliseconds Ms(double s) { return milliseconds(static_cast<std::int64_t>(s * 1000 + 0.5)); }

// The work service as a scenario target: GET /work, success = 2xx, no retries (the seed's
// one-pod, no-retry attacker), no promises to verify.
class WorkTarget : public fixtures::ScenarioTarget {
 public:
  WorkTarget(std::string address, int max_connections) : address_(std::move(address)), max_connections_(max_connections) {}
  std::unique_ptr<load::Workload> MakeWorkload(ledger::PromiseLedger&, const RunClock&) override {
    load::HttpWorkloadOptions o;
    o.target = address_;
    o.path = "/work";
    o.max_connections = max_connections_;
    o.io_threads = 2;
    o.require_body = true;  // the body contract: a 200 with an empty body is not a success
    return std::make_unique<load::HttpWorkload>(std::move(o));
  }
  std::unique_ptr<ledger::PromiseVerifier> MakeVerifier() override { return nullptr; }
  bool MakesNoPromises() const override { return true; }  // availability and the alert chain only
  load::OutcomePolicy Policy() const override { return load::HttpOutcomePolicy(); }

 private:
  std::string address_;
  int max_connections_;
};

// Sets the work service's failure rate through its TEST-ONLY admin endpoint.
void SetFailureRate(const std::string& address, double rate) {
  load::HttpRequest r;
  r.method = "POST";
  r.target = "/admin/failure-rate";
  r.body = std::to_string(rate);
  const load::HttpReply reply = load::HttpFetch(address, r, seconds(5));
  if (reply.status != 200)
    throw std::runtime_error("setting the failure rate to " + r.body + " failed: HTTP " +
                             std::to_string(reply.status) + " " + reply.error);
}

// The target reports `rate` on its admin endpoint (GET /admin/failure-rate).
chaos::Confirmation ConfirmFailureRate(const std::string& address, double rate, Clock::time_point deadline) {
  return chaos::PollUntil(
      deadline,
      [&]() -> std::optional<std::string> {
        load::HttpRequest r;
        r.method = "GET";
        r.target = "/admin/failure-rate";
        const load::HttpReply reply = load::HttpFetch(address, r, seconds(5));
        if (reply.status != 200) return std::nullopt;
        if (std::abs(std::stod(reply.body) - rate) > 1e-9) return std::nullopt;
        return "the target reports failure rate " + reply.body.substr(0, reply.body.find('\n'));
      },
      "the target never reported failure rate " + std::to_string(rate), milliseconds(200));
}

class StagesSuite : public fixtures::ResilienceScenario {
 protected:
  std::string DefaultSet() const override { return "stages"; }

  // Runs the stages and judges every gate, the alert chain's included; `expected_red`: the chain
  // gates a seeded defect must turn red.
  // `because`: what each of them must show (JudgeOptions::expected_red_because).
  void RunStages(bool misroute, std::set<std::string> expected_red = {}, std::map<std::string, std::string> because = {}) {
    const auto& p = config().params;
    const bool trigger = p.GetString("trigger_failure") == "on";
    const double time_scale = p.GetDouble("time_scale");
    const double base_rate = p.GetDouble("base_failure_rate");
    const double triggered_rate = p.GetDouble("triggered_failure_rate");
    const double reset_before_end = p.GetDuration("reset_before_end_seconds");
    const double resolve_timeout = p.GetDuration("resolve_timeout_seconds");
    const auto& stages = config().profile;
    ASSERT_GE(stages.size(), 3u) << config().source << ": the stages scenario needs warm-up, sustained, overload";

    // The pool holds one connection per call in flight: sized to the in-flight ceiling, so the
    // generator never waits for a connection the ceiling allows (before the work service starts:
    // it inherits the raised limit).
    if (const auto error = process::EnsureFileDescriptors(config().max_in_flight)) FAIL() << config().source << ": " << *error;

    work::WorkProcessOptions wo;
    // A deep queue: under overload the service queues and clients time out (no artificial 503s),
    // so the only 5xx burst is the one trigger_failure causes.
    wo.extra_args = {"--failure-rate=" + std::to_string(base_rate),
                     "--queue=" + std::to_string(static_cast<long long>(p.GetDouble("work_queue")))};
    work_ = std::make_unique<work::WorkProcess>(work::WorkProcess::Start(wo));
    // Pre-flight: the attack runs only against a target that answers its health endpoint.
    std::string error;
    ASSERT_TRUE(load::WaitForHealthy(work_->address(), "/healthz", seconds(60), &error))
        << "pre-flight: the target never became healthy: " << error;

    const std::filesystem::path artifacts = std::filesystem::absolute(
        std::filesystem::path(gtest_integration::CurrentFlags().artifacts_dir) / set_name() / config().name / "alerting");
    alerting::AlertingStackOptions ao;
    ao.scrape_targets = {work_->address()};
    ao.time_scale = time_scale;
    ao.misroute_test_alerts = misroute;
    ao.artifacts_dir = artifacts.string();
    alerting::AlertingStack stack = alerting::AlertingStack::Start(ao);

    // trigger_failure: raise the failure rate at the start of stage 2, reset it near the end of stage 3.
    std::vector<chaos::TimedFault> faults;
    if (trigger) {
      const double at = stages[0].duration_seconds;
      double end = 0;
      for (const auto& s : stages) end += s.duration_seconds;
      const std::string address = work_->address();
      // No time-to-recover from its reset: the reset falls inside the overload stage, which keeps
      // failing by design, so the gate could only be red; the recovery this suite judges is the
      // alert resolving (the chain check).
      faults.push_back({.at = Ms(at), .duration = Ms(end - reset_before_end - at),
                        .fault = std::make_shared<chaos::LambdaFault>(
                            "trigger-failure", "failure rate " + std::to_string(triggered_rate),
                            chaos::LambdaFault::Callables{
                                .apply = [address, triggered_rate] { SetFailureRate(address, triggered_rate); },
                                .revert = [address, base_rate] { SetFailureRate(address, base_rate); },
                                .confirm_applied = [address, triggered_rate](Clock::time_point deadline) {
                                  return ConfirmFailureRate(address, triggered_rate, deadline);
                                },
                                .confirm_reverted = [address, base_rate](Clock::time_point deadline) {
                                  return ConfirmFailureRate(address, base_rate, deadline);
                                }}),
                        .measure_recovery = false});
    }
    const alerting::WallTime run_start = alerting::WallClock::now();
    WorkTarget target(work_->address(), config().max_in_flight);
    fixtures::JudgeOptions options;
    options.expected_red = std::move(expected_red);
    options.expected_red_because = std::move(because);
    // The chain, once the run is over: wait (bounded) for the incident to resolve after the reset,
    // then judge it as gates.
    options.suite_gates = [&](const fixtures::ScenarioOutcome&) {
      const auto resolve_until = Clock::now() + Ms(resolve_timeout);
      while (Clock::now() < resolve_until && !gtest_integration::InterruptRequested()) {
        const auto incidents = stack.test_sink().Incidents();
        const bool all_resolved = !incidents.empty() && std::all_of(incidents.begin(), incidents.end(), [](const auto& i) {
          return i.resolved_at.has_value();
        });
        if (all_resolved || (!trigger && Clock::now() > resolve_until - Ms(resolve_timeout / 2))) break;
        std::this_thread::sleep_for(milliseconds(500));
      }
      const alerting::WallTime run_end = alerting::WallClock::now();
      const alerting::ChainReport chain = alerting::CheckChain(stack, run_start, run_end);
      const alerting::PostRunSummary summary =
          alerting::Summarize(stack.client(), run_start, run_end, stack.summary_options());
      const std::string summary_text = alerting::FormatSummary(summary);
      std::cout << "Post-run summary from Prometheus:\n" << summary_text << "Alert chain:\n" << chain.Describe() << "\n";
      std::filesystem::create_directories(artifacts);
      std::ofstream(artifacts / "prometheus-summary.txt") << summary_text;
      std::ofstream(artifacts / "alert-chain.txt") << chain.Describe() << "\n";
      return alerting::AlertChainGates(chain, run_start);
    };
    RunAndJudge(target, faults, std::move(options));
    stack.Stop();
  }

  void TearDown() override {
    if (work_) work_->Stop();
    fixtures::ResilienceScenario::TearDown();
  }

  std::unique_ptr<work::WorkProcess> work_;
};

// The alert chain fires and resolves; nothing reaches production: every gate green.
TEST_F(StagesSuite, DISABLED_AlertChain) { RunStages(/*misroute=*/false); }

// Verdict: with trigger_failure off the alert never fires, so no step of the chain happens.
TEST_F(StagesSuite, DISABLED_VerdictNoTriggerIsCaught) {
  RunStages(/*misroute=*/false, {std::string(alerting::kAlertFired), std::string(alerting::kAlertRouted),
                                 std::string(alerting::kIncidentOpened), std::string(alerting::kIncidentResolved)},
            {{std::string(alerting::kAlertFired), "never reached firing"}});
}

// Verdict: a seeded routing misconfiguration sends the alert to production instead of the test
// receiver: production-untouched names the receiver, and no test incident opens.
TEST_F(StagesSuite, DISABLED_VerdictMisrouteIsCaught) {
  RunStages(/*misroute=*/true, {std::string(alerting::kAlertRouted), std::string(alerting::kIncidentOpened),
                                std::string(alerting::kIncidentResolved),
                                std::string(alerting::kProductionUntouched)},
            {{std::string(alerting::kProductionUntouched), "receiver 'production'"},
             {std::string(alerting::kAlertRouted), "although it fired"}});
}

}  // namespace
}  // namespace aftershock::suites
