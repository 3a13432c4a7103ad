// KubernetesClusterDriver against a stand-in kubectl: a shell script first on the driver's command
// line that records every invocation and answers from recorded outputs of the real tools' JSON
// (written by hand from the documented formats of `kubectl get -o json`: a List with items, a Pod's
// metadata.labels, spec.nodeName, status.podIP and status.conditions, a Node's spec.unschedulable,
// a CloudNativePG Cluster's status.instances, readyInstances and currentPrimary). The tests assert
// the exact commands, the objects applied, and that everything is undone on exit.
#include "framework/cluster/kubernetes/kubernetes_cluster_driver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "framework/process/scratch_dir.h"

namespace aftershock::cluster {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kStandIn[] = R"(#!/bin/sh
# Stand-in kubectl: records the call, copies an applied file, answers from out/ or fails from fail/.
dir=$(dirname "$0")
printf '%s\n' "$*" >> "$dir/calls.log"
key=$(printf '%s' "$*" | tr -c 'A-Za-z0-9.=-' '_')
if [ "$1" = apply ] && [ "$2" = -f ]; then cp "$3" "$dir/applied/"; fi
if [ -f "$dir/fail/$key" ]; then cat "$dir/fail/$key" >&2; exit 1; fi
if [ -f "$dir/out/$key" ]; then cat "$dir/out/$key"; fi
exit 0
)";

// A pod's metadata.uid in these answers: "uid-" and its name (real ones are UUIDs; the driver
// treats it as opaque). `terminating` adds metadata.deletionTimestamp.
std::string Pod(const std::string& name, const std::string& node, const std::string& ip, bool ready,
                const std::string& labels, bool terminating = false) {
  return R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": ")" + name + R"(", "uid": "uid-)" + name +
         R"(", "namespace": "aftershock", )" + (terminating ? R"("deletionTimestamp": "2026-12-06T02:00:00Z", )" : "") +
         R"("labels": )" + labels + R"(}, "spec": {"nodeName": ")" + node + R"("}, "status": {"phase": "Running", "podIP": ")" + ip +
         R"(", "conditions": [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": ")" +
         (ready ? "True" : "False") + R"("}]}})";
}

std::string List(const std::vector<std::string>& items) {
  std::string out = R"({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [)";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]}";
}

std::string ServicePods(bool b_ready = true) {
  const std::string labels = R"({"app.kubernetes.io/name": "aftershock-pseudonym", "pod-template-hash": "7c9d"})";
  return List({Pod("aftershock-pseudonym-7c9d-aaaaa", "aftershock-worker", "10.244.1.5", true, labels),
               Pod("aftershock-pseudonym-7c9d-bbbbb", "aftershock-worker2", "10.244.2.7", b_ready, labels),
               Pod("aftershock-pseudonym-7c9d-ccccc", "aftershock-worker3", "10.244.3.4", true, labels)});
}

std::string DatabasePods(const std::string& primary = "aftershock-db-1") {
  std::vector<std::string> pods;
  const char* nodes[] = {"aftershock-worker", "aftershock-worker2", "aftershock-worker3"};
  for (int i = 1; i <= 3; ++i) {
    const std::string name = "aftershock-db-" + std::to_string(i);
    pods.push_back(Pod(name, nodes[i - 1], "10.244." + std::to_string(i) + ".9", true,
                       R"({"cnpg.io/cluster": "aftershock-db", "cnpg.io/podRole": "instance", "cnpg.io/instanceName": ")" +
                           name + R"(", "cnpg.io/instanceRole": ")" + (name == primary ? "primary" : "replica") + R"("})"));
  }
  return List(pods);
}

std::string DatabaseCluster(int ready = 3, const std::string& primary = "aftershock-db-1") {
  return R"({"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster", "metadata": {"name": "aftershock-db", "namespace": "aftershock"},
    "spec": {"instances": 3, "postgresql": {"synchronous": {"method": "any", "number": 1, "dataDurability": "required"}}},
    "status": {"instances": 3, "readyInstances": )" +
         std::to_string(ready) + R"(, "currentPrimary": ")" + primary + R"(", "phase": "Cluster in healthy state"}})";
}

std::string Node(const std::string& name, const std::string& scenario_name, bool cordoned = false) {
  return R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": ")" + name +
         R"(", "labels": {"kubernetes.io/hostname": ")" + name + R"(", "aftershock.dev/node": ")" + scenario_name +
         R"("}}, "spec": {)" + (cordoned ? R"("unschedulable": true)" : "") + "}}";
}

std::string Nodes() {
  return List({Node("aftershock-control-plane", "control-plane"), Node("aftershock-worker", "node-a"),
               Node("aftershock-worker2", "node-b"), Node("aftershock-worker3", "node-c")});
}

class KubernetesClusterDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::mkdir((dir_.path() + "/out").c_str(), 0700);
    ::mkdir((dir_.path() + "/fail").c_str(), 0700);
    ::mkdir((dir_.path() + "/applied").c_str(), 0700);
    std::ofstream(dir_.path() + "/kubectl") << kStandIn;
    ::chmod((dir_.path() + "/kubectl").c_str(), 0700);
    options_.kubectl = dir_.path() + "/kubectl";
    options_.poll_period = std::chrono::milliseconds(10);
    options_.run_id = "t1";
    Answer("-n aftershock get pods -l app.kubernetes.io/name=aftershock-pseudonym -o json", ServicePods());
    Answer("-n aftershock get clusters.postgresql.cnpg.io aftershock-db -o json", DatabaseCluster());
    Answer("-n aftershock get pods -l cnpg.io/cluster=aftershock-db -o json", DatabasePods());
    Answer("get nodes -o json", Nodes());
  }

  static std::string Key(const std::string& command) {
    std::string key = command;
    for (char& c : key) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '=' && c != '-') c = '_';
    }
    return key;
  }
  void Answer(const std::string& command, const std::string& out) { std::ofstream(dir_.path() + "/out/" + Key(command)) << out; }
  void Fail(const std::string& command, const std::string& err) { std::ofstream(dir_.path() + "/fail/" + Key(command)) << err; }

  // Every call so far, the driver's private folder shown as <dir>.
  std::vector<std::string> Calls() {
    std::ifstream in(dir_.path() + "/calls.log");
    std::vector<std::string> calls;
    std::string line;
    const std::regex scratch("/[^ ]*/(aftershock-[a-z0-9-]+\\.yaml)");
    while (std::getline(in, line)) calls.push_back(std::regex_replace(line, scratch, "<dir>/$1"));
    return calls;
  }
  void ForgetCalls() { std::ofstream(dir_.path() + "/calls.log", std::ios::trunc); }
  YAML::Node Applied(const std::string& name) { return YAML::LoadFile(dir_.path() + "/applied/" + name + ".yaml"); }

  process::ScratchDir dir_ = process::ScratchDir::Create("k8s-driver-test");
  KubernetesDriverOptions options_;
};

TEST_F(KubernetesClusterDriverTest, ObserveReadsPodsDatabaseAndNodes) {
  KubernetesClusterDriver driver(options_);
  const chaos::ClusterState s = driver.Observe();
  EXPECT_TRUE(s.steady) << s.not_steady_reason;
  EXPECT_EQ(s.primary, "aftershock-db-1");
  EXPECT_EQ(s.replication, "synchronous");
  ASSERT_EQ(s.replicas.size(), 3u);
  EXPECT_EQ(s.replicas[1].name, "aftershock-pseudonym-7c9d-bbbbb");
  EXPECT_EQ(s.replicas[1].node, "node-b");  // the scenario's name, from aftershock.dev/node
  EXPECT_EQ(s.replicas[1].address, "10.244.2.7:8081");
  EXPECT_TRUE(s.replicas[1].ready);
  EXPECT_EQ(s.replicas[1].instance, "pod uid-aftershock-pseudonym-7c9d-bbbbb");
  ASSERT_EQ(s.members.size(), 3u);
  EXPECT_EQ(s.members[0].role, "leader");
  EXPECT_EQ(s.members[1].role, "replica");
  EXPECT_EQ(s.members[2].state, "running");
  EXPECT_THAT(Calls(), ElementsAre("-n aftershock get pods -l app.kubernetes.io/name=aftershock-pseudonym -o json",
                                   "-n aftershock get clusters.postgresql.cnpg.io aftershock-db -o json",
                                   "-n aftershock get pods -l cnpg.io/cluster=aftershock-db -o json", "get nodes -o json"));
}

TEST_F(KubernetesClusterDriverTest, NotSteadyNamesWhy) {
  KubernetesClusterDriver driver(options_);
  Answer("-n aftershock get pods -l app.kubernetes.io/name=aftershock-pseudonym -o json", ServicePods(false));
  EXPECT_EQ(driver.Observe().not_steady_reason, "replica aftershock-pseudonym-7c9d-bbbbb not ready");
  Answer("-n aftershock get pods -l app.kubernetes.io/name=aftershock-pseudonym -o json", ServicePods());
  Answer("-n aftershock get clusters.postgresql.cnpg.io aftershock-db -o json", DatabaseCluster(2));
  EXPECT_EQ(driver.Observe().not_steady_reason, "database aftershock-db: 2 of 3 instances ready");
  Answer("-n aftershock get clusters.postgresql.cnpg.io aftershock-db -o json", DatabaseCluster(3, "aftershock-db-2"));
  EXPECT_EQ(driver.Observe().not_steady_reason,
            "database aftershock-db: currentPrimary is 'aftershock-db-2', the primary label is on aftershock-db-1");
  Answer("get nodes -o json",
         List({Node("aftershock-worker", "node-a"), Node("aftershock-worker2", "node-b", true), Node("aftershock-worker3", "node-c")}));
  Answer("-n aftershock get clusters.postgresql.cnpg.io aftershock-db -o json", DatabaseCluster());
  EXPECT_EQ(driver.Observe().not_steady_reason, "replica aftershock-pseudonym-7c9d-bbbbb on cordoned node node-b");
  // WaitSteady gives up at its deadline, naming the reason.
  try {
    driver.WaitSteady(std::chrono::milliseconds(50));
    FAIL() << "WaitSteady returned on a cordoned node";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("not steady within 1s: replica aftershock-pseudonym-7c9d-bbbbb on cordoned node node-b"));
  }
}

TEST_F(KubernetesClusterDriverTest, PrimaryKillIsOnePodChaosOnThePrimaryDeletedOnExit) {
  {
    KubernetesClusterDriver driver(options_);
    Answer("-n aftershock get pods -l cnpg.io/cluster=aftershock-db,cnpg.io/instanceRole=primary -o json",
           List({Pod("aftershock-db-1", "aftershock-worker", "10.244.1.9", true,
                     R"({"cnpg.io/cluster": "aftershock-db", "cnpg.io/instanceRole": "primary"})")}));
    const chaos::ActionOutcome outcome = driver.KillDatabasePrimary();
    EXPECT_EQ(outcome.target, "aftershock-db-1");
    EXPECT_EQ(outcome.summary, "killed database primary aftershock-db-1 (podchaos/aftershock-primary-kill-t1-1)");
    EXPECT_THAT(driver.HeldObjects(), ElementsAre("podchaos/aftershock-primary-kill-t1-1"));
    const YAML::Node chaos = Applied("aftershock-primary-kill-t1-1");
    EXPECT_EQ(chaos["apiVersion"].as<std::string>(), "chaos-mesh.org/v1alpha1");
    EXPECT_EQ(chaos["kind"].as<std::string>(), "PodChaos");
    EXPECT_EQ(chaos["metadata"]["namespace"].as<std::string>(), "aftershock");
    EXPECT_EQ(chaos["spec"]["action"].as<std::string>(), "pod-kill");
    EXPECT_EQ(chaos["spec"]["mode"].as<std::string>(), "one");
    EXPECT_EQ(chaos["spec"]["selector"]["pods"]["aftershock"][0].as<std::string>(), "aftershock-db-1");
    EXPECT_EQ(chaos["spec"]["selector"]["pods"]["aftershock"].size(), 1u);
  }
  // The driver is gone: what it applied is deleted.
  EXPECT_THAT(Calls(),
              ElementsAre("-n aftershock get pods -l cnpg.io/cluster=aftershock-db,cnpg.io/instanceRole=primary -o json",
                          "apply -f <dir>/aftershock-primary-kill-t1-1.yaml",
                          "-n aftershock delete podchaos aftershock-primary-kill-t1-1 --ignore-not-found --wait=false"));
}

TEST_F(KubernetesClusterDriverTest, PrimaryKillFailsLoudlyWhenNoPodCarriesThePrimaryLabel) {
  KubernetesClusterDriver driver(options_);
  Answer("-n aftershock get pods -l cnpg.io/cluster=aftershock-db,cnpg.io/instanceRole=primary -o json", List({}));
  try {
    driver.KillDatabasePrimary();
    FAIL() << "killed something without a primary";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("0 pods carry cnpg.io/cluster=aftershock-db,cnpg.io/instanceRole=primary"));
    EXPECT_THAT(e.what(), HasSubstr("nothing killed"));
  }
  EXPECT_TRUE(driver.HeldObjects().empty());
  EXPECT_THAT(Calls(), ElementsAre("-n aftershock get pods -l cnpg.io/cluster=aftershock-db,cnpg.io/instanceRole=primary -o json"));
}

TEST_F(KubernetesClusterDriverTest, ReplicaKillTargetsTheNamedPod) {
  KubernetesClusterDriver driver(options_);
  const chaos::ActionOutcome named = driver.KillReplica("aftershock-pseudonym-7c9d-bbbbb");
  EXPECT_EQ(named.summary,
            "killed replica aftershock-pseudonym-7c9d-bbbbb (pod uid-aftershock-pseudonym-7c9d-bbbbb, "
            "podchaos/aftershock-replica-kill-t1-1)");
  EXPECT_EQ(named.target, "aftershock-pseudonym-7c9d-bbbbb");
  EXPECT_EQ(named.instance, "pod uid-aftershock-pseudonym-7c9d-bbbbb");
  EXPECT_EQ(Applied("aftershock-replica-kill-t1-1")["spec"]["selector"]["pods"]["aftershock"][0].as<std::string>(),
            "aftershock-pseudonym-7c9d-bbbbb");
  // "" = a random ready replica, from what Observe sees.
  const std::string random = driver.KillReplica("").target;
  EXPECT_THAT(random, ::testing::StartsWith("aftershock-pseudonym-7c9d-"));
  EXPECT_THAT(driver.HeldObjects(), ElementsAre("podchaos/aftershock-replica-kill-t1-1", "podchaos/aftershock-replica-kill-t1-2"));
  EXPECT_TRUE(driver.Cleanup().empty());
  EXPECT_TRUE(driver.HeldObjects().empty());
  const std::vector<std::string> calls = Calls();
  ASSERT_GE(calls.size(), 2u);
  EXPECT_EQ(calls[calls.size() - 2], "-n aftershock delete podchaos aftershock-replica-kill-t1-1 --ignore-not-found --wait=false");
  EXPECT_EQ(calls[calls.size() - 1], "-n aftershock delete podchaos aftershock-replica-kill-t1-2 --ignore-not-found --wait=false");
}

// A drained node's pod is rescheduled elsewhere, so the drain fault reads the cordon from the nodes.
TEST_F(KubernetesClusterDriverTest, CordonedNodesAreObservedWithOrWithoutAReplicaOnThem) {
  KubernetesClusterDriver driver(options_);
  EXPECT_TRUE(driver.Observe().cordoned_nodes.empty());
  Answer("get nodes -o json", List({Node("aftershock-control-plane", "control-plane"), Node("aftershock-worker", "node-a"),
                                    Node("aftershock-worker2", "node-b", /*cordoned=*/true),
                                    Node("aftershock-worker3", "node-c")}));
  const chaos::ClusterState s = driver.Observe();
  EXPECT_THAT(s.cordoned_nodes, ElementsAre("node-b"));
  EXPECT_FALSE(s.steady);
}

TEST_F(KubernetesClusterDriverTest, AReplicaKillOfAPodThatIsNotThereKillsNothing) {
  KubernetesClusterDriver driver(options_);
  try {
    driver.KillReplica("aftershock-pseudonym-7c9d-zzzzz");
    ADD_FAILURE() << "killed a pod that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no pod aftershock-pseudonym-7c9d-zzzzz"));
  }
  EXPECT_TRUE(driver.HeldObjects().empty());
}

// The instance the replica-kill and rolling-restart faults ask about: running while the pod exists
// and is not being deleted; a replacement (another name, another UID) does not keep it running.
TEST_F(KubernetesClusterDriverTest, AnInstanceRunsWhileItsPodExistsAndIsNotBeingDeleted) {
  KubernetesClusterDriver driver(options_);
  EXPECT_TRUE(driver.InstanceRunning("pod uid-aftershock-pseudonym-7c9d-bbbbb"));
  const std::string labels = R"({"app.kubernetes.io/name": "aftershock-pseudonym", "pod-template-hash": "7c9d"})";
  Answer("-n aftershock get pods -l app.kubernetes.io/name=aftershock-pseudonym -o json",
         List({Pod("aftershock-pseudonym-7c9d-aaaaa", "aftershock-worker", "10.244.1.5", true, labels),
               Pod("aftershock-pseudonym-7c9d-bbbbb", "aftershock-worker2", "10.244.2.7", false, labels, true),
               Pod("aftershock-pseudonym-7c9d-ccccc", "aftershock-worker3", "10.244.3.4", true, labels)}));
  EXPECT_FALSE(driver.InstanceRunning("pod uid-aftershock-pseudonym-7c9d-bbbbb"));  // terminating
  Answer("-n aftershock get pods -l app.kubernetes.io/name=aftershock-pseudonym -o json",
         List({Pod("aftershock-pseudonym-7c9d-aaaaa", "aftershock-worker", "10.244.1.5", true, labels),
               Pod("aftershock-pseudonym-7c9d-ddddd", "aftershock-worker2", "10.244.2.8", true, labels),
               Pod("aftershock-pseudonym-7c9d-ccccc", "aftershock-worker3", "10.244.3.4", true, labels)}));
  EXPECT_FALSE(driver.InstanceRunning("pod uid-aftershock-pseudonym-7c9d-bbbbb"));  // deleted, replaced
  EXPECT_TRUE(driver.InstanceRunning("pod uid-aftershock-pseudonym-7c9d-ddddd"));
  EXPECT_THROW(driver.InstanceRunning("pid 1234"), std::invalid_argument);
}

// What a scenario's SetUp refuses: chaos objects of another (killed) run, not its own.
TEST_F(KubernetesClusterDriverTest, LeftoverChaosObjectsAreTheOnesThisDriverDidNotCreate) {
  KubernetesClusterDriver driver(options_);
  EXPECT_TRUE(driver.LeftoverChaosObjects().empty());
  driver.KillReplica("aftershock-pseudonym-7c9d-bbbbb");
  Answer("-n aftershock get podchaos,networkchaos -l app.kubernetes.io/managed-by=aftershock -o name",
         "podchaos.chaos-mesh.org/aftershock-replica-kill-t1-1\n"
         "podchaos.chaos-mesh.org/aftershock-primary-kill-0a1b2c-1\n"
         "networkchaos.chaos-mesh.org/aftershock-db-partition-0a1b2c-2\n");
  EXPECT_THAT(driver.LeftoverChaosObjects(), ElementsAre("podchaos/aftershock-primary-kill-0a1b2c-1",
                                                         "networkchaos/aftershock-db-partition-0a1b2c-2"));
  Fail("-n aftershock get podchaos,networkchaos -l app.kubernetes.io/managed-by=aftershock -o name",
       "error: the server doesn't have a resource type \"podchaos\"");
  EXPECT_THROW(driver.LeftoverChaosObjects(), std::runtime_error);  // no Chaos Mesh: said, not taken as clean
}

TEST_F(KubernetesClusterDriverTest, TheServiceTargetIsTheHeadlessServiceByDns) {
  EXPECT_EQ(KubernetesClusterDriver(options_).ServiceTarget(),
            "dns:///aftershock-pseudonym-headless.aftershock.svc.cluster.local:8081");
}

TEST_F(KubernetesClusterDriverTest, ObjectNamesCarryARunIdSoRunsNeverShareOne) {
  options_.run_id = "";
  KubernetesClusterDriver first(options_);
  KubernetesClusterDriver second(options_);
  const std::string a = first.KillReplica("aftershock-pseudonym-7c9d-bbbbb").summary;
  const std::string b = second.KillReplica("aftershock-pseudonym-7c9d-bbbbb").summary;
  EXPECT_THAT(a, ::testing::MatchesRegex(".*podchaos/aftershock-replica-kill-[0-9a-f]{6}-1\\)"));
  EXPECT_NE(a, b);
}

TEST_F(KubernetesClusterDriverTest, DrainResolvesTheNodeAndUncordonsOnExit) {
  Answer("get nodes -l aftershock.dev/node=node-b -o json", List({Node("aftershock-worker2", "node-b")}));
  {
    KubernetesClusterDriver driver(options_);
    EXPECT_EQ(driver.Drain("node-b", std::chrono::seconds(120)).summary, "drained node node-b (aftershock-worker2)");
  }
  EXPECT_THAT(Calls(), ElementsAre("get nodes -l aftershock.dev/node=node-b -o json",
                                   "drain aftershock-worker2 --ignore-daemonsets --delete-emptydir-data --timeout=120s",
                                   "uncordon aftershock-worker2"));
}

TEST_F(KubernetesClusterDriverTest, UncordonReleasesTheNodeOnce) {
  Answer("get nodes -l aftershock.dev/node=node-b -o json", List({Node("aftershock-worker2", "node-b")}));
  {
    KubernetesClusterDriver driver(options_);
    driver.Drain("node-b", std::chrono::milliseconds(0));  // the default: 120 s
    EXPECT_EQ(driver.Uncordon("node-b").summary, "uncordoned node node-b (aftershock-worker2)");
  }
  EXPECT_THAT(Calls(), ElementsAre("get nodes -l aftershock.dev/node=node-b -o json",
                                   "drain aftershock-worker2 --ignore-daemonsets --delete-emptydir-data --timeout=120s",
                                   "uncordon aftershock-worker2"));
}

TEST_F(KubernetesClusterDriverTest, FailedDrainIsUncordonedAtOnceAndThrows) {
  Answer("get nodes -l aftershock.dev/node=node-b -o json", List({Node("aftershock-worker2", "node-b")}));
  Fail("drain aftershock-worker2 --ignore-daemonsets --delete-emptydir-data --timeout=30s",
       "error: Cannot evict pod as it would violate the pod's disruption budget.");
  {
    KubernetesClusterDriver driver(options_);
    try {
      driver.Drain("node-b", std::chrono::seconds(30));
      FAIL() << "a failed drain returned";
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("drain of node node-b (aftershock-worker2) failed (exit 1: error: Cannot evict pod"));
      EXPECT_THAT(e.what(), HasSubstr("; uncordoned"));
    }
  }
  EXPECT_THAT(Calls(), ElementsAre("get nodes -l aftershock.dev/node=node-b -o json",
                                   "drain aftershock-worker2 --ignore-daemonsets --delete-emptydir-data --timeout=30s",
                                   "uncordon aftershock-worker2"));  // once, and nothing left for the exit
}

TEST_F(KubernetesClusterDriverTest, DrainRefusesANodeNameThatIsNotExactlyOneNode) {
  Answer("get nodes -l aftershock.dev/node=node-d -o json", List({}));
  KubernetesClusterDriver driver(options_);
  try {
    driver.Drain("node-d", std::chrono::seconds(30));
    FAIL() << "drained an unknown node";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("node 'node-d': 0 nodes are labelled aftershock.dev/node=node-d (wants exactly one)"));
  }
}

TEST_F(KubernetesClusterDriverTest, DatabaseLinkFaultsAreNetworkChaosClearedByClear) {
  KubernetesClusterDriver driver(options_);
  chaos::LinkFault blackhole;
  blackhole.blackhole = true;
  EXPECT_EQ(driver.SetDatabaseLinkFaults("", blackhole).summary,
            "service -> every instance: partition (networkchaos/aftershock-db-link-t1-1)");
  chaos::LinkFault slow;
  slow.latency = std::chrono::milliseconds(200);
  slow.jitter = std::chrono::milliseconds(50);
  EXPECT_EQ(driver.SetDatabaseLinkFaults("aftershock-db-2", slow).summary,
            "service -> aftershock-db-2: delay 200 ms +- 50 ms (networkchaos/aftershock-db-link-t1-2)");
  const YAML::Node partition = Applied("aftershock-db-link-t1-1");
  EXPECT_EQ(partition["kind"].as<std::string>(), "NetworkChaos");
  EXPECT_EQ(partition["spec"]["action"].as<std::string>(), "partition");
  EXPECT_EQ(partition["spec"]["direction"].as<std::string>(), "both");
  EXPECT_EQ(partition["spec"]["selector"]["labelSelectors"]["app.kubernetes.io/name"].as<std::string>(), "aftershock-pseudonym");
  EXPECT_EQ(partition["spec"]["target"]["selector"]["labelSelectors"]["cnpg.io/cluster"].as<std::string>(), "aftershock-db");
  const YAML::Node delay = Applied("aftershock-db-link-t1-2");
  EXPECT_EQ(delay["spec"]["delay"]["latency"].as<std::string>(), "200ms");
  EXPECT_EQ(delay["spec"]["target"]["selector"]["pods"]["aftershock"][0].as<std::string>(), "aftershock-db-2");
  ForgetCalls();
  EXPECT_EQ(driver.ClearDatabaseLinkFaults().summary,
            "cleared database link faults: deleted networkchaos/aftershock-db-link-t1-1 networkchaos/aftershock-db-link-t1-2");
  EXPECT_THAT(Calls(), ElementsAre("-n aftershock delete networkchaos aftershock-db-link-t1-1 --ignore-not-found --wait=false",
                                   "-n aftershock delete networkchaos aftershock-db-link-t1-2 --ignore-not-found --wait=false"));
  EXPECT_TRUE(driver.HeldObjects().empty());
  chaos::LinkFault reset;
  reset.reset = true;
  EXPECT_THROW(driver.SetDatabaseLinkFaults("", reset), std::runtime_error);
  EXPECT_TRUE(driver.HeldObjects().empty());
}

// A delay with a bandwidth limit: two NetworkChaos objects of one group (one action each), both
// cleared together.
TEST_F(KubernetesClusterDriverTest, ABandwidthLimitIsATokenBucketBesideTheDelay) {
  KubernetesClusterDriver driver(options_);
  chaos::LinkFault slow_and_narrow;
  slow_and_narrow.latency = std::chrono::milliseconds(100);
  slow_and_narrow.bandwidth_bytes_per_second = 125000;  // 1 Mbit/s
  EXPECT_EQ(driver.SetReplicationLinkFaults("aftershock-db-3", slow_and_narrow).summary,
            "replication aftershock-db-3 <-> the others: delay 100 ms +- 0 ms, bandwidth 125000 B/s "
            "(networkchaos/aftershock-replication-link-t1-1 networkchaos/aftershock-replication-link-t1-2)");
  const YAML::Node bandwidth = Applied("aftershock-replication-link-t1-2");
  EXPECT_EQ(bandwidth["spec"]["action"].as<std::string>(), "bandwidth");
  EXPECT_EQ(bandwidth["spec"]["bandwidth"]["rate"].as<std::string>(), "1000000bps");
  EXPECT_EQ(bandwidth["spec"]["bandwidth"]["limit"].as<long>(), 20971520);
  EXPECT_EQ(bandwidth["spec"]["bandwidth"]["buffer"].as<long>(), 12500);
  EXPECT_EQ(bandwidth["spec"]["selector"]["pods"]["aftershock"][0].as<std::string>(), "aftershock-db-3");
  EXPECT_THAT(driver.HeldObjects(), ElementsAre("networkchaos/aftershock-replication-link-t1-1",
                                                "networkchaos/aftershock-replication-link-t1-2"));
  driver.ClearReplicationLinkFaults();
  EXPECT_TRUE(driver.HeldObjects().empty());
}

TEST_F(KubernetesClusterDriverTest, AClearThatCannotDeleteThrowsAndCleanupRetries) {
  chaos::LinkFault blackhole;
  blackhole.blackhole = true;
  Fail("-n aftershock delete networkchaos aftershock-db-link-t1-1 --ignore-not-found --wait=false",
       "Unable to connect to the server: dial tcp 172.18.0.2:6443: i/o timeout");
  {
    KubernetesClusterDriver driver(options_);
    driver.SetDatabaseLinkFaults("", blackhole);
    try {
      driver.ClearDatabaseLinkFaults();
      FAIL() << "a failed delete was reported as cleared";
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("cannot delete networkchaos/aftershock-db-link-t1-1 (exit 1: Unable to connect"));
    }
    EXPECT_THAT(driver.HeldObjects(), ElementsAre("networkchaos/aftershock-db-link-t1-1"));
    EXPECT_THAT(driver.Cleanup(), ElementsAre(HasSubstr("networkchaos/aftershock-db-link-t1-1: delete exit 1")));
    ::remove((dir_.path() + "/fail/" + Key("-n aftershock delete networkchaos aftershock-db-link-t1-1 --ignore-not-found "
                                            "--wait=false")).c_str());
  }
  // The destructor tried once more, and this time the delete went through.
  const std::vector<std::string> calls = Calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(),
                       "-n aftershock delete networkchaos aftershock-db-link-t1-1 --ignore-not-found --wait=false"),
            3);
}

TEST_F(KubernetesClusterDriverTest, ObserveFromTwoThreadsAtOnce) {
  KubernetesClusterDriver driver(options_);
  std::atomic<int> steady{0};
  const auto observe = [&] {
    for (int i = 0; i < 5; ++i) steady += driver.Observe().steady ? 1 : 0;
  };
  std::thread other(observe);
  observe();
  other.join();
  EXPECT_EQ(steady.load(), 10);
}

TEST_F(KubernetesClusterDriverTest, RollingRestartIsRolloutRestartAndStatus) {
  KubernetesClusterDriver driver(options_);
  driver.RollingRestart(std::chrono::seconds(10), std::chrono::seconds(5));
  EXPECT_THAT(Calls(), ElementsAre("-n aftershock rollout restart deployment/aftershock-pseudonym",
                                   "-n aftershock rollout status deployment/aftershock-pseudonym --timeout=300s"));
}

TEST_F(KubernetesClusterDriverTest, AFailingCommandNamesItself) {
  Fail("-n aftershock rollout restart deployment/aftershock-pseudonym",
       "Error from server (NotFound): deployments.apps \"aftershock-pseudonym\" not found");
  KubernetesClusterDriver driver(options_);
  try {
    driver.RollingRestart(std::chrono::seconds(10), std::chrono::seconds(5));
    FAIL() << "returned after a failed command";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "kubectl -n aftershock rollout restart deployment/aftershock-pseudonym: exit 1: Error from server "
                 "(NotFound): deployments.apps \"aftershock-pseudonym\" not found");
  }
}

TEST_F(KubernetesClusterDriverTest, WhatItCannotDoThrows) {
  KubernetesClusterDriver driver(options_);
  EXPECT_THROW(driver.SetReplicationMode(false, 0), std::runtime_error);
  EXPECT_THROW(driver.SetReplicaDefects("", {{"non_idempotent", "true"}}), std::runtime_error);
  EXPECT_TRUE(Calls().empty());
}

}  // namespace
}  // namespace aftershock::cluster
