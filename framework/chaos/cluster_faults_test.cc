// The cluster faults against a fake ClusterDriver (no cluster): each must confirm only what it sees.
#include "framework/chaos/cluster_faults.h"

#include <gtest/gtest.h>

#include <mutex>

namespace aftershock::chaos {
namespace {

using std::chrono::milliseconds;

// A cluster in memory; actions change its state as a real one would (or, with `broken`, do nothing).
class FakeDriver : public ClusterDriver {
 public:
  FakeDriver() {
    for (const char* n : {"a", "b", "c"}) {
      state_.replicas.push_back({.name = n, .node = std::string("node-") + n, .address = "", .pid = 4190000 + n[0],  // no such process here
                                 .ready = true});
    }
    state_.primary = "pg-a";
    state_.replication = "synchronous";
    state_.steady = true;
  }
  bool broken = false;  // actions answer but change nothing
  std::map<std::string, std::string> last_defects;

  ClusterState Observe() override {
    std::lock_guard<std::mutex> lock(mu_);
    return state_;
  }
  void WaitSteady(milliseconds) override {}
  ActionOutcome KillReplica(const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    ReplicaState& r = Named(name.empty() ? "b" : name);
    const int pid = r.pid;
    if (!broken) r.pid += 1000;  // restarted with another pid
    return {"killed replica " + r.name + " (pid " + std::to_string(pid) + ")", r.name};
  }
  ActionOutcome KillDatabasePrimary() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!broken) state_.primary = "pg-b";
    return {"killed primary pg-a", "pg-a"};
  }
  ActionOutcome SetDatabaseLinkFaults(const std::string&, const LinkFault&) override { return {}; }
  ActionOutcome ClearDatabaseLinkFaults() override { return {}; }
  ActionOutcome SetReplicationLinkFaults(const std::string&, const LinkFault&) override { return {}; }
  ActionOutcome ClearReplicationLinkFaults() override { return {}; }
  ActionOutcome SetReplicationMode(bool synchronous, std::int64_t) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!broken) state_.replication = synchronous ? "synchronous" : "asynchronous";
    return {};
  }
  ActionOutcome RollingRestart(milliseconds, milliseconds) override { return {}; }
  ActionOutcome Drain(const std::string& node, milliseconds) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& r : state_.replicas) {
      if (r.node == node && !broken) {
        r.node_cordoned = true;
        r.pid = 0;
        r.ready = false;
      }
    }
    return {"drained " + node, node};
  }
  ActionOutcome Uncordon(const std::string& node) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& r : state_.replicas) {
      if (r.node == node) {
        r.node_cordoned = false;
        r.pid = 4242;
        r.ready = true;
      }
    }
    return {};
  }
  ActionOutcome SetReplicaDefects(const std::string& replica, const std::map<std::string, std::string>& d) override {
    std::lock_guard<std::mutex> lock(mu_);
    last_defects = d;
    for (auto& r : state_.replicas) {
      if ((replica.empty() || r.name == replica) && !broken) r.defects = d.empty() ? "" : "some";
    }
    return {};
  }

 private:
  ReplicaState& Named(const std::string& name) {
    for (auto& r : state_.replicas) {
      if (r.name == name) return r;
    }
    throw std::runtime_error("no replica " + name);
  }
  std::mutex mu_;
  ClusterState state_;
};

Clock::time_point Soon() { return Clock::now() + milliseconds(600); }

TEST(ClusterFaultsTest, ReplicaKillConfirmsOnlyAReplacedProcess) {
  FakeDriver driver;
  ReplicaKillFault kill(driver);
  kill.Apply();
  EXPECT_EQ(kill.ConfirmApplied(Soon()).status, Confirmation::Status::kConfirmed) << kill.ConfirmApplied(Soon()).detail;
  FakeDriver broken;
  broken.broken = true;
  ReplicaKillFault missed(broken);
  missed.Apply();
  // The old pid is gone from /proc, but the replica is still ready with that same pid: not a kill.
  const Confirmation c = missed.ConfirmApplied(Soon());
  EXPECT_NE(c.status, Confirmation::Status::kConfirmed) << c.detail;
}

TEST(ClusterFaultsTest, PrimaryKillNeedsAnotherLeader) {
  FakeDriver driver;
  PrimaryKillFault kill(driver);
  kill.Apply();
  EXPECT_EQ(kill.ConfirmApplied(Soon()).status, Confirmation::Status::kConfirmed);
  FakeDriver broken;
  broken.broken = true;
  PrimaryKillFault missed(broken);
  missed.Apply();
  EXPECT_EQ(missed.ConfirmApplied(Soon()).status, Confirmation::Status::kNotConfirmed);
}

TEST(ClusterFaultsTest, DrainConfirmsTheCordonAndItsRevert) {
  FakeDriver driver;
  DrainFault drain(driver, "node-b", milliseconds(1000));
  drain.Apply();
  EXPECT_EQ(drain.ConfirmApplied(Soon()).status, Confirmation::Status::kConfirmed);
  drain.Revert();
  EXPECT_EQ(drain.ConfirmReverted(Soon()).status, Confirmation::Status::kConfirmed);
  FakeDriver broken;
  broken.broken = true;
  DrainFault missed(broken, "node-b", milliseconds(1000));
  missed.Apply();
  EXPECT_EQ(missed.ConfirmApplied(Soon()).status, Confirmation::Status::kNotConfirmed);
}

TEST(ClusterFaultsTest, AsyncReplicationConfirmsTheMode) {
  FakeDriver driver;
  AsyncReplicationFault async(driver, 0);
  async.Apply();
  EXPECT_EQ(async.ConfirmApplied(Soon()).status, Confirmation::Status::kConfirmed);
  FakeDriver broken;
  broken.broken = true;
  AsyncReplicationFault missed(broken, 0);
  missed.Apply();
  EXPECT_EQ(missed.ConfirmApplied(Soon()).status, Confirmation::Status::kNotConfirmed);
}

TEST(ClusterFaultsTest, ReplicaDefectsPassOpaquelyAndConfirmFromTheDriverOrTheHook) {
  FakeDriver driver;
  ReplicaDefectsFault defects(driver, "internal-errors", "", {{"internal-rate", "0.5"}});
  defects.Apply();
  EXPECT_EQ(driver.last_defects.at("internal-rate"), "0.5");
  EXPECT_EQ(defects.ConfirmApplied(Soon()).status, Confirmation::Status::kConfirmed);
  defects.Revert();
  EXPECT_TRUE(driver.last_defects.empty());
  EXPECT_EQ(defects.ConfirmReverted(Soon()).status, Confirmation::Status::kConfirmed);

  FakeDriver broken;
  broken.broken = true;
  ReplicaDefectsFault missed(broken, "internal-errors", "", {{"internal-rate", "0.5"}});
  missed.Apply();
  EXPECT_EQ(missed.ConfirmApplied(Soon()).status, Confirmation::Status::kNotConfirmed);

  std::size_t asked = 0;
  ReplicaDefectsFault hooked(driver, "x", "c", {{"k", "v"}},
                             [&](const std::vector<ReplicaState>& replicas, const std::map<std::string, std::string>& w,
                                 Clock::time_point) {
                               asked = replicas.size();
                               return w.empty() ? Confirmation::NotConfirmed("none")
                                                : Confirmation::Confirmed("asked " + replicas.front().name);
                             });
  hooked.Apply();
  const Confirmation c = hooked.ConfirmApplied(Soon());
  EXPECT_EQ(c.status, Confirmation::Status::kConfirmed);
  EXPECT_EQ(c.detail, "asked c");
  EXPECT_EQ(asked, 1u);
}

}  // namespace
}  // namespace aftershock::chaos
