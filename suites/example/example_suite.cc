// The example scenario set: short scenarios against the in-memory pseudonym reference target,
// started by the fixture. `ctest -L example` (or -L resilience) runs them end to end.
//
// Each scenario's knobs come from manifests/sets/example.yaml; RESILIENCE_* variables override them.
#include <gtest/gtest.h>

#include <memory>

#include "fixtures/resilience_scenario.h"
#include "fixtures/targets/pseudonym/adapter/pseudonym_defects_fault.h"
#include "fixtures/targets/pseudonym/adapter/pseudonym_target.h"
#include "fixtures/targets/pseudonym/pseudonym_process.h"
#include "fixtures/targets/pseudonym/test_control_client.h"

namespace aftershock::suites {
namespace {

using std::chrono::milliseconds;
namespace v1 = pseudonym::v1;

milliseconds Ms(double seconds) { return milliseconds(static_cast<std::int64_t>(seconds * 1000 + 0.5)); }

class ExampleSuite : public fixtures::ResilienceScenario {
 protected:
  std::string DefaultSet() const override { return "example"; }

  void SetUp() override {
    fixtures::ResilienceScenario::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // One replica: the in-memory store is per process, so replicas would not share promises.
    server_ = std::make_unique<pseudonym::PseudonymProcess>(pseudonym::PseudonymProcess::Start({}));
    control_ = std::make_unique<pseudonym::TestControlClient>(server_->address());
    target_ = std::make_unique<fixtures::PseudonymTarget>(std::vector<std::string>{server_->address()});
    target_->EnsureNamespace();
  }

  void TearDown() override {
    if (server_) {
      EXPECT_EQ(server_->Stop(), 0) << "the target did not shut down gracefully";
    }
    fixtures::ResilienceScenario::TearDown();
  }

  // Sets `defects` on the target for [at, at + duration), then clears them; confirms the target
  // reports them, and none after the revert.
  chaos::TimedFault DefectFault(std::string name, const v1::Defects& defects, double at, double duration) {
    return {.at = Ms(at), .duration = Ms(duration), .fault = fixtures::MakeDefectsFault(*control_, std::move(name), defects)};
  }

  std::unique_ptr<pseudonym::PseudonymProcess> server_;
  std::unique_ptr<pseudonym::TestControlClient> control_;
  std::unique_ptr<fixtures::PseudonymTarget> target_;
};

TEST_F(ExampleSuite, DISABLED_Baseline) { RunAndJudge(*target_, {}); }

TEST_F(ExampleSuite, DISABLED_StallBurst) {
  const double stall = config().params.GetDuration("stall_seconds");
  v1::Defects defects;
  defects.set_stall_until_ms_from_now(static_cast<std::uint32_t>(Ms(stall).count()));
  RunAndJudge(*target_, {DefectFault("stall", defects, config().params.GetDuration("stall_at_seconds"), stall)});
}

TEST_F(ExampleSuite, DISABLED_InternalBurst) {
  v1::Defects defects;
  defects.set_internal_rate(config().params.GetDouble("internal_rate"));
  RunAndJudge(*target_, {DefectFault("internal-errors", defects, config().params.GetDuration("internal_at_seconds"),
                                     config().params.GetDuration("internal_seconds"))});
}

}  // namespace
}  // namespace aftershock::suites
