#include "framework/scenario/internal/convergence.h"

#include <chrono>
#include <stdexcept>

#include "framework/scenario/internal/test_target.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::scenario::internal {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

TEST(AwaitConvergence, NoCheckMeansNoGate) {
  InProcessTarget target;
  EXPECT_FALSE(AwaitConvergence(target, milliseconds(100), {}).has_value());
}

TEST(AwaitConvergence, ConvergedOnTheThirdCheckIsGreen) {
  InProcessTarget target;
  target.convergence = [](int check) { return Convergence{.converged = check >= 3, .detail = "catching up"}; };
  const auto gate = AwaitConvergence(target, std::chrono::seconds(30), {}, milliseconds(1));
  ASSERT_TRUE(gate.has_value());
  EXPECT_EQ(gate->name, "target-converged");
  EXPECT_TRUE(gate->passed) << gate->message;
  EXPECT_EQ(target.checks, 3);
  EXPECT_THAT(gate->message, HasSubstr("(3 check(s))"));
}

TEST(AwaitConvergence, NeverConvergedIsRedWithTheLastReason) {
  InProcessTarget target;
  target.convergence = [](int) { return Convergence{.converged = false, .detail = "replica b still replaying"}; };
  const auto gate = AwaitConvergence(target, milliseconds(50), {}, milliseconds(5));
  ASSERT_TRUE(gate.has_value());
  EXPECT_FALSE(gate->passed);
  EXPECT_THAT(gate->message, HasSubstr("not converged within 0.1 s"));  // 50 ms, one decimal
  EXPECT_THAT(gate->message, HasSubstr("replica b still replaying"));
  EXPECT_GE(target.checks, 2);
  EXPECT_LE(target.checks, 12);  // bounded by timeout / poll (+1, +slack for a slow machine)
}

TEST(AwaitConvergence, AThrowingCheckIsNotConverged) {
  InProcessTarget target;
  target.convergence = [](int) -> Convergence { throw std::runtime_error("status endpoint refused"); };
  const auto gate = AwaitConvergence(target, milliseconds(0), {});
  ASSERT_TRUE(gate.has_value());
  EXPECT_FALSE(gate->passed);
  EXPECT_THAT(gate->message, HasSubstr("CheckConverged threw: status endpoint refused"));
  EXPECT_EQ(target.checks, 1);  // a zero timeout still asks once
}

TEST(AwaitConvergence, AStopEndsTheWaitRed) {
  InProcessTarget target;
  target.convergence = [](int) { return Convergence{.converged = false, .detail = {}}; };
  const auto gate = AwaitConvergence(target, std::chrono::hours(1), [] { return true; });
  ASSERT_TRUE(gate.has_value());
  EXPECT_FALSE(gate->passed);
  EXPECT_THAT(gate->message, HasSubstr("when the run was stopped"));
  EXPECT_THAT(gate->message, HasSubstr("the target gave no reason"));
}

}  // namespace
}  // namespace aftershock::scenario::internal
