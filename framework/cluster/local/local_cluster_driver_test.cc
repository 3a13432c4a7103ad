// LocalClusterDriver's translation of the supervisor's status: replicas' instances are their
// processes, checked in this machine's /proc; cordoned nodes are listed once each.
#include "framework/cluster/local/local_cluster_driver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <stdexcept>

namespace aftershock::cluster {
namespace {

using ::testing::ElementsAre;

TEST(LocalClusterDriverTest, TheStatusBecomesInstancesAndCordonedNodes) {
  v1::ClusterStatus status;
  for (const char* name : {"a", "b", "c"}) {
    v1::Replica* r = status.add_replicas();
    r->set_name(name);
    r->set_node(std::string("node-") + name);
    r->set_pid(name[0] == 'b' ? 0 : 4000 + name[0]);
    r->set_node_cordoned(name[0] == 'b');
  }
  const chaos::ClusterState s = ToClusterState(status);
  ASSERT_EQ(s.replicas.size(), 3u);
  EXPECT_EQ(s.replicas[0].instance, "pid 4097");
  EXPECT_EQ(s.replicas[1].instance, "");  // not running
  EXPECT_THAT(s.cordoned_nodes, ElementsAre("node-b"));
}

TEST(LocalClusterDriverTest, AnInstanceIsALiveProcessOfThisMachine) {
  // No control call is made for InstanceRunning: a client that connects nowhere will do.
  LocalClusterDriver driver(ClusterClient::Connect("/nonexistent/aftershock-test.sock"));
  EXPECT_TRUE(driver.InstanceRunning("pid " + std::to_string(::getpid())));
  EXPECT_FALSE(driver.InstanceRunning("pid 999999999"));
  EXPECT_THROW(driver.InstanceRunning("pod 1b2c"), std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::cluster
