// The cluster faults against a fake ClusterDriver (no cluster): each must confirm only what it sees.
#include "framework/chaos/cluster_faults.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <set>

namespace aftershock::chaos {
namespace {

using std::chrono::milliseconds;

// A cluster in memory; actions change its state as a real one would (or, with `broken`, do nothing).
// `replace_by_new_name` replaces a killed or restarted replica as a Kubernetes Deployment does: a
// new pod under a new name; otherwise as the local cluster does: the same name, a new process.
class FakeDriver : public ClusterDriver {
 public:
  FakeDriver() {
    for (const char* n : {"a", "b", "c"}) {
      const std::string instance = std::string("fake ") + n + "1";
      state_.replicas.push_back({.name = n, .node = std::string("node-") + n, .address = "", .instance = instance, .ready = true});
      running_.insert(instance);
    }
    state_.primary = "pg-a";
    state_.replication = "synchronous";
    state_.steady = true;
  }
  bool broken = false;  // actions answer but change nothing
  bool replace_by_new_name = false;
  // The killed instance stops running, but Observe still shows the replica ready with it.
  bool stale_observation = false;
  std::map<std::string, std::string> last_defects;

  ClusterState Observe() override {
    std::lock_guard<std::mutex> lock(mu_);
    return state_;
  }
  void WaitSteady(milliseconds) override {}
  bool InstanceRunning(const std::string& instance) override {
    std::lock_guard<std::mutex> lock(mu_);
    return running_.count(instance) > 0;
  }
  ActionOutcome KillReplica(const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    ReplicaState& r = Named(name.empty() ? "b" : name);
    const ActionOutcome outcome{"killed replica " + r.name + " (" + r.instance + ")", r.name, r.instance};
    if (stale_observation) running_.erase(r.instance);
    if (!broken && !stale_observation) Replace(r);
    return outcome;
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
  ActionOutcome RollingRestart(milliseconds, milliseconds) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (broken) return {};
    // One left behind when `restart_all_but_one`: a restart that stopped early.
    const std::size_t n = state_.replicas.size() - (restart_all_but_one ? 1 : 0);
    for (std::size_t i = 0; i < n; ++i) Replace(state_.replicas[i]);
    return {"restarted"};
  }
  bool restart_all_but_one = false;
  // Local: the node's replica stops until the node is uncordoned. Kubernetes (replace_by_new_name):
  // its pod is evicted and comes back at once on another node, under a new name.
  ActionOutcome Drain(const std::string& node, milliseconds) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (broken) return {"drained " + node, node};
    state_.cordoned_nodes.push_back(node);
    for (auto& r : state_.replicas) {
      if (r.node != node) continue;
      r.node_cordoned = true;
      if (replace_by_new_name) {
        Replace(r);
        r.node = "node-a";
        r.node_cordoned = false;
        continue;
      }
      running_.erase(r.instance);
      r.instance.clear();
      r.ready = false;
    }
    return {"drained " + node, node};
  }
  ActionOutcome Uncordon(const std::string& node) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase(state_.cordoned_nodes, node);
    for (auto& r : state_.replicas) {
      if (r.node == node) {
        r.node_cordoned = false;
        r.instance = "fake " + r.name + "-uncordoned";
        running_.insert(r.instance);
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

 protected:
  ActionOutcome SetReady(const std::string& name, bool ready) {
    std::lock_guard<std::mutex> lock(mu_);
    Named(name).ready = ready;
    return {};
  }

 private:
  ReplicaState& Named(const std::string& name) {
    for (auto& r : state_.replicas) {
      if (r.name == name) return r;
    }
    throw std::runtime_error("no replica " + name);
  }
  void Replace(ReplicaState& r) {
    running_.erase(r.instance);
    if (replace_by_new_name) r.name += "-new";
    r.instance += "-new";
    running_.insert(r.instance);
  }
  std::mutex mu_;
  ClusterState state_;
  std::set<std::string> running_;  // the instances that run
};

Clock::time_point Soon() { return Clock::now() + milliseconds(600); }

Confirmation KillAndConfirm(FakeDriver& driver) {
  ReplicaKillFault kill(driver);
  kill.Apply();
  return kill.ConfirmApplied(Soon());
}

TEST(ClusterFaultsTest, ReplicaKillConfirmsOnlyAReplacedProcess) {
  FakeDriver driver;
  const Confirmation confirmed = KillAndConfirm(driver);
  EXPECT_EQ(confirmed.status, Confirmation::Status::kConfirmed) << confirmed.detail;
  EXPECT_EQ(confirmed.detail, "replica b: fake b1 gone, restarted as fake b1-new");
  // The killed instance still runs: not a kill.
  FakeDriver broken;
  broken.broken = true;
  const Confirmation c = KillAndConfirm(broken);
  EXPECT_NE(c.status, Confirmation::Status::kConfirmed) << c.detail;
  // The instance is gone, but the replica is still ready with that same instance: not a kill.
  FakeDriver stale;
  stale.stale_observation = true;
  const Confirmation u = KillAndConfirm(stale);
  EXPECT_NE(u.status, Confirmation::Status::kConfirmed) << u.detail;
}

// On Kubernetes the Deployment's new pod has a new name: the killed pod's name is simply gone.
TEST(ClusterFaultsTest, ReplicaKillConfirmsAReplicaReplacedUnderANewName) {
  FakeDriver driver;
  driver.replace_by_new_name = true;
  const Confirmation c = KillAndConfirm(driver);
  EXPECT_EQ(c.status, Confirmation::Status::kConfirmed) << c.detail;
  EXPECT_EQ(c.detail, "replica b: fake b1 gone, no longer among the replicas");
}

// A driver that does not say which instance it killed cannot have its kill confirmed.
class NamelessKillDriver : public FakeDriver {
 public:
  ActionOutcome KillReplica(const std::string& name) override {
    ActionOutcome outcome = FakeDriver::KillReplica(name);
    outcome.instance.clear();
    return outcome;
  }
};

TEST(ClusterFaultsTest, ReplicaKillWithoutTheKilledInstanceIsNotConfirmed) {
  NamelessKillDriver driver;
  const Confirmation c = KillAndConfirm(driver);
  EXPECT_EQ(c.status, Confirmation::Status::kNotConfirmed) << c.detail;
  EXPECT_NE(c.detail.find("did not name the replica and instance"), std::string::npos) << c.detail;
}

Confirmation RestartAndConfirm(FakeDriver& driver) {
  RollingRestartFault restart(driver, milliseconds(100), milliseconds(100));
  restart.Apply();
  return restart.ConfirmApplied(Soon());
}

TEST(ClusterFaultsTest, RollingRestartConfirmsEveryInstanceReplacedUnderEitherNaming) {
  for (const bool new_names : {false, true}) {
    FakeDriver driver;
    driver.replace_by_new_name = new_names;
    const Confirmation c = RestartAndConfirm(driver);
    EXPECT_EQ(c.status, Confirmation::Status::kConfirmed) << c.detail;
    EXPECT_NE(c.detail.find("a fake a1 gone, b fake b1 gone, c fake c1 gone; now "), std::string::npos) << c.detail;
  }
  FakeDriver partial;
  partial.restart_all_but_one = true;
  const Confirmation c = RestartAndConfirm(partial);
  EXPECT_EQ(c.status, Confirmation::Status::kNotConfirmed) << c.detail;
  EXPECT_NE(c.detail.find("c fake c1 running"), std::string::npos) << c.detail;
  FakeDriver broken;
  broken.broken = true;
  EXPECT_EQ(RestartAndConfirm(broken).status, Confirmation::Status::kNotConfirmed);
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
  const Confirmation applied = drain.ConfirmApplied(Soon());
  EXPECT_EQ(applied.status, Confirmation::Status::kConfirmed) << applied.detail;
  EXPECT_EQ(applied.detail, "node-b cordoned; replica b not running");
  drain.Revert();
  const Confirmation reverted = drain.ConfirmReverted(Soon());
  EXPECT_EQ(reverted.status, Confirmation::Status::kConfirmed) << reverted.detail;
  EXPECT_EQ(reverted.detail, "node-b schedulable; 3 replicas ready (3 before the drain)");
  FakeDriver broken;
  broken.broken = true;
  DrainFault missed(broken, "node-b", milliseconds(1000));
  missed.Apply();
  EXPECT_EQ(missed.ConfirmApplied(Soon()).status, Confirmation::Status::kNotConfirmed);
}

// On Kubernetes the drained node's pod is rescheduled onto another node: the node is left with no
// replica, which confirms the drain (not "no replica on node-b", an error).
TEST(ClusterFaultsTest, DrainConfirmsAPodRescheduledElsewhere) {
  FakeDriver driver;
  driver.replace_by_new_name = true;
  DrainFault drain(driver, "node-b", milliseconds(1000));
  drain.Apply();
  const Confirmation applied = drain.ConfirmApplied(Soon());
  EXPECT_EQ(applied.status, Confirmation::Status::kConfirmed) << applied.detail;
  EXPECT_EQ(applied.detail, "node-b cordoned; no replica left on it");
  drain.Revert();
  const Confirmation reverted = drain.ConfirmReverted(Soon());
  EXPECT_EQ(reverted.status, Confirmation::Status::kConfirmed) << reverted.detail;
}

// An uncordon that leaves fewer replicas ready than before the drain has not reverted it.
class StuckAfterUncordonDriver : public FakeDriver {
 public:
  ActionOutcome Uncordon(const std::string& node) override {
    FakeDriver::Uncordon(node);
    return SetReady("b", false);
  }
};

TEST(ClusterFaultsTest, DrainIsNotRevertedWhileAReplicaIsNotReadyAgain) {
  StuckAfterUncordonDriver driver;
  DrainFault drain(driver, "node-b", milliseconds(1000));
  drain.Apply();
  drain.Revert();
  const Confirmation c = drain.ConfirmReverted(Soon());
  EXPECT_EQ(c.status, Confirmation::Status::kNotConfirmed) << c.detail;
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
