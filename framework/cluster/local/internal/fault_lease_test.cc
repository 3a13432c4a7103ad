#include "framework/cluster/local/internal/fault_lease.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace aftershock::cluster::internal {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class FaultLeaseTest : public ::testing::Test {
 protected:
  FaultLease::Clock::time_point now_{std::chrono::hours(1)};
  FaultLease lease_{[this] { return now_; }};
  void Advance(milliseconds by) { now_ += by; }
};

TEST_F(FaultLeaseTest, NothingIsDueWithoutHeldFaults) {
  EXPECT_FALSE(lease_.DueForRevert());
  lease_.Renew("suite", seconds(5));
  Advance(seconds(60));
  EXPECT_FALSE(lease_.DueForRevert()) << "an expired lease with no fault applied has nothing to revert";
  EXPECT_FALSE(lease_.FaultsHeld());
}

TEST_F(FaultLeaseTest, HeldFaultsAreNotDueWhileTheLeaseIsRenewed) {
  lease_.Renew("suite", seconds(5));
  lease_.FaultApplied(seconds(120));
  for (int i = 0; i < 20; ++i) {
    Advance(seconds(1));
    lease_.Renew("suite", seconds(5));
    ASSERT_FALSE(lease_.DueForRevert()) << "after " << i + 1 << " s of renewals";
  }
}

TEST_F(FaultLeaseTest, HeldFaultsAreDueOnceTheLeaseIsNotRenewedWithinItsTtl) {
  lease_.Renew("ha_suite pid 42", seconds(5));
  lease_.FaultApplied(seconds(120));
  Advance(milliseconds(4999));
  EXPECT_FALSE(lease_.DueForRevert());
  Advance(milliseconds(1));
  const auto due = lease_.DueForRevert();
  ASSERT_TRUE(due);
  EXPECT_NE(due->reason.find("'ha_suite pid 42' not renewed within its TTL of 5000 ms"), std::string::npos)
      << due->reason;
  EXPECT_TRUE(lease_.LiveHolders().empty());
}

TEST_F(FaultLeaseTest, ReleaseMakesHeldFaultsDueAtOnce) {
  lease_.Renew("suite", seconds(5));
  lease_.FaultApplied(seconds(120));
  EXPECT_TRUE(lease_.Release("suite"));
  EXPECT_FALSE(lease_.Release("suite")) << "released twice";
  const auto due = lease_.DueForRevert();
  ASSERT_TRUE(due);
  EXPECT_EQ(due->reason, "fault lease of 'suite' released");
}

TEST_F(FaultLeaseTest, FaultsAreHeldWhileAnyHolderIsLive) {
  lease_.Renew("suite", seconds(5));
  lease_.Renew("aftershock-cli", seconds(600));
  lease_.FaultApplied(seconds(120));
  Advance(seconds(10));
  EXPECT_FALSE(lease_.DueForRevert()) << "the CLI still holds them";
  ASSERT_EQ(lease_.LiveHolders().size(), 1u);
  EXPECT_EQ(lease_.LiveHolders()[0].name, "aftershock-cli");
  EXPECT_EQ(lease_.LiveHolders()[0].remaining, seconds(590));
  Advance(seconds(590));
  EXPECT_TRUE(lease_.DueForRevert());
}

TEST_F(FaultLeaseTest, AFaultAppliedWithoutALeaseIsHeldForTheUnheldTime) {
  lease_.FaultApplied(seconds(120));
  ASSERT_EQ(lease_.LiveHolders().size(), 1u);
  EXPECT_EQ(lease_.LiveHolders()[0].name, FaultLease::kUnheldHolder);
  Advance(seconds(100));
  lease_.FaultApplied(seconds(120));  // renews the implicit holder
  Advance(seconds(100));
  EXPECT_FALSE(lease_.DueForRevert());
  Advance(seconds(20));
  const auto due = lease_.DueForRevert();
  ASSERT_TRUE(due);
  EXPECT_NE(due->reason.find(FaultLease::kUnheldHolder), std::string::npos) << due->reason;
}

TEST_F(FaultLeaseTest, AFaultAppliedUnderALeaseGetsNoImplicitHolder) {
  lease_.Renew("suite", seconds(5));
  lease_.FaultApplied(seconds(120));
  ASSERT_EQ(lease_.LiveHolders().size(), 1u);
  Advance(seconds(6));
  EXPECT_TRUE(lease_.DueForRevert()) << "the implicit 120 s must not outlive the suite's lease";
}

TEST_F(FaultLeaseTest, ARealHolderTakesOverFaultsAppliedWithoutALease) {
  lease_.FaultApplied(seconds(120));
  lease_.Renew("suite", seconds(5));
  ASSERT_EQ(lease_.LiveHolders().size(), 1u);
  EXPECT_EQ(lease_.LiveHolders()[0].name, "suite");
  Advance(seconds(5));
  EXPECT_TRUE(lease_.DueForRevert()) << "the implicit hold must not outlive the holder that took it over";
}

TEST_F(FaultLeaseTest, RevertedRecordsTheExpiryAndClearsTheHeldFaults) {
  lease_.Renew("suite", seconds(5));
  lease_.FaultApplied(seconds(120));
  Advance(seconds(6));
  const auto due = lease_.DueForRevert();
  ASSERT_TRUE(due);
  lease_.Reverted(due->generation, due->reason, "database link faults on pg-a", 1234);
  EXPECT_FALSE(lease_.DueForRevert());
  EXPECT_FALSE(lease_.FaultsHeld());
  ASSERT_TRUE(lease_.LastExpiry());
  EXPECT_EQ(lease_.LastExpiry()->unix_ms, 1234);
  EXPECT_EQ(lease_.LastExpiry()->reverted, "database link faults on pg-a");
  EXPECT_EQ(lease_.Expiries(), 1u);
}

TEST_F(FaultLeaseTest, ARevertThatFoundNothingIsNotRecorded) {
  lease_.Renew("suite", seconds(5));
  lease_.FaultApplied(seconds(120));
  lease_.Release("suite");
  const auto due = lease_.DueForRevert();
  ASSERT_TRUE(due);
  lease_.Reverted(due->generation, due->reason, "", 1234);
  EXPECT_FALSE(lease_.FaultsHeld());
  EXPECT_FALSE(lease_.LastExpiry());
  EXPECT_EQ(lease_.Expiries(), 0u);
}

TEST_F(FaultLeaseTest, AFaultAppliedDuringTheRevertStaysHeld) {
  lease_.Renew("suite", seconds(5));
  lease_.FaultApplied(seconds(120));
  Advance(seconds(6));
  const auto due = lease_.DueForRevert();
  ASSERT_TRUE(due);
  lease_.FaultApplied(seconds(1));  // someone applied another one meanwhile (implicitly held)
  lease_.Reverted(due->generation, due->reason, "x", 1);
  EXPECT_TRUE(lease_.FaultsHeld());
  Advance(seconds(1));
  EXPECT_TRUE(lease_.DueForRevert());
}

TEST_F(FaultLeaseTest, BadRenewalsAreRefusedNamingTheHolder) {
  EXPECT_THROW(lease_.Renew("", seconds(5)), std::invalid_argument);
  try {
    lease_.Renew("suite", milliseconds(0));
    FAIL() << "a 0 ms TTL was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'suite'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aftershock::cluster::internal
