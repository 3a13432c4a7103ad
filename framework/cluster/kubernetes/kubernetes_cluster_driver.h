// KubernetesClusterDriver: a chaos::ClusterDriver over kubectl, CloudNativePG and Chaos Mesh, for the
// objects of manifests/kubernetes/ (docs/kubernetes.md, issue 15 item 2). FIRST STEP: tested only
// against a stand-in kubectl (kubernetes_cluster_driver_test.cc); never run against a cluster.
//
//   cluster::KubernetesClusterDriver driver({.ns = "aftershock"});
//   driver.WaitSteady(std::chrono::minutes(5));        // 3 ready instances, one primary, replicas ready
//   driver.KillDatabasePrimary();                      // a one-shot PodChaos on the primary's pod
//   ...                                                // ~KubernetesClusterDriver deletes it
//
// What it does with the cluster:
//  - Observe: the service's pods (-l replica_selector), the CNPG Cluster's status (instances,
//    readyInstances, currentPrimary), its instance pods (cnpg.io/instanceRole), the nodes (cordoned,
//    and the node label that names them in a scenario: aftershock.dev/node).
//  - A replica's instance is "pod <metadata.uid>"; InstanceRunning asks whether that pod still
//    exists and is neither being deleted nor finished (the killed pod's replacement has another
//    name and UID).
//  - KillReplica / KillDatabasePrimary: a one-shot Chaos Mesh PodChaos (pod-kill) on the exact pod
//    it observed; the primary kill throws when no pod, or more than one, carries
//    cnpg.io/instanceRole=primary (the operator or its labels changed: never kill nothing quietly).
//  - Database and replication link faults: a NetworkChaos (partition for blackhole, delay for
//    latency/jitter) between the service's pods and the instances, or between one
//    instance and the others, and a `bandwidth` object (tc's token bucket) for a bandwidth limit;
//    Clear* deletes them. A reset fault throws: NetworkChaos has no TCP reset.
//  - RollingRestart: kubectl rollout restart + rollout status (grace and min-ready are the
//    Deployment's own terminationGracePeriodSeconds and minReadySeconds).
//  - Drain: the node labelled aftershock.dev/node=<node>, kubectl drain --ignore-daemonsets
//    --delete-emptydir-data --timeout; a drain that fails is uncordoned at once and throws.
//  - SetReplicationMode and SetReplicaDefects throw: the synchronous stanza is the manifest's, and
//    the image has no defects switch.
// Every chaos object it created is deleted, and every node it cordoned uncordoned, by Cleanup(),
// which the destructor calls: on any exit of the scenario that owns the driver. Thread-safe: a fault
// may poll Observe while another acts.
//
// Never run against a live cluster (docs/kubernetes.md says what has been).
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_KUBERNETES_KUBERNETES_CLUSTER_DRIVER_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_KUBERNETES_KUBERNETES_CLUSTER_DRIVER_H_

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "framework/chaos/cluster_driver.h"
#include "framework/process/scratch_dir.h"

namespace aftershock::cluster {

struct KubernetesDriverOptions {
  std::string kubectl = "kubectl";  // a path, or a name looked up in PATH
  std::string ns = "aftershock";    // the service, its database and the chaos objects
  std::string deployment = "aftershock-pseudonym";
  std::string replica_selector = "app.kubernetes.io/name=aftershock-pseudonym";
  std::string database = "aftershock-db";  // the CloudNativePG Cluster
  int service_port = 8081;
  // The headless Service in front of the replicas: the load's target (ServiceTarget()).
  std::string headless_service = "aftershock-pseudonym-headless";
  std::string node_label = "aftershock.dev/node";
  // In every chaos object's name (aftershock-primary-kill-<run_id>-1), so that two drivers, or a run
  // and the leftovers of one that was killed, never share a name. "" = 6 random hex digits.
  std::string run_id;
  std::chrono::milliseconds command_timeout{60000};   // each kubectl call but drain and rollout status
  std::chrono::milliseconds rollout_timeout{300000};  // rollout status
  std::chrono::milliseconds drain_timeout{120000};    // Drain(node, 0)
  std::chrono::milliseconds poll_period{2000};        // WaitSteady
};

class KubernetesClusterDriver : public chaos::ClusterDriver {
 public:
  explicit KubernetesClusterDriver(KubernetesDriverOptions options = {});
  ~KubernetesClusterDriver() override;  // Cleanup(), problems printed to stderr
  KubernetesClusterDriver(const KubernetesClusterDriver&) = delete;
  KubernetesClusterDriver& operator=(const KubernetesClusterDriver&) = delete;

  chaos::ClusterState Observe() override;
  void WaitSteady(std::chrono::milliseconds timeout) override;
  bool InstanceRunning(const std::string& instance) override;
  chaos::ActionOutcome KillReplica(const std::string& name) override;
  chaos::ActionOutcome KillDatabasePrimary() override;
  chaos::ActionOutcome SetDatabaseLinkFaults(const std::string& member, const chaos::LinkFault& fault) override;
  chaos::ActionOutcome ClearDatabaseLinkFaults() override;
  chaos::ActionOutcome SetReplicationLinkFaults(const std::string& member, const chaos::LinkFault& fault) override;
  chaos::ActionOutcome ClearReplicationLinkFaults() override;
  chaos::ActionOutcome SetReplicationMode(bool synchronous, std::int64_t maximum_lag_on_failover_bytes) override;
  chaos::ActionOutcome RollingRestart(std::chrono::milliseconds grace, std::chrono::milliseconds min_ready) override;
  chaos::ActionOutcome Drain(const std::string& node, std::chrono::milliseconds timeout) override;
  chaos::ActionOutcome Uncordon(const std::string& node) override;
  chaos::ActionOutcome SetReplicaDefects(const std::string& replica,
                                         const std::map<std::string, std::string>& defects) override;

  // Deletes every chaos object still held and uncordons every node still cordoned by Drain; returns
  // what it could not undo (empty: nothing left behind). Idempotent.
  std::vector<std::string> Cleanup();
  // "podchaos/aftershock-primary-kill-1", ...: the chaos objects it created and has not deleted.
  std::vector<std::string> HeldObjects() const;
  // The PodChaos and NetworkChaos objects labelled app.kubernetes.io/managed-by=aftershock in the
  // namespace that this driver did not create ("podchaos/<name>"): a killed run's, still in force.
  std::vector<std::string> LeftoverChaosObjects();
  // "dns:///<headless_service>.<ns>.svc.cluster.local:<service_port>": every ready replica, by DNS.
  std::string ServiceTarget() const;
  const KubernetesDriverOptions& options() const { return options_; }

 private:
  struct Result {
    int code = 0;
    std::string out;
    std::string err;
  };
  struct Held {
    std::string kind;  // podchaos | networkchaos
    std::string name;
    std::string group;  // "" (one-shot), "db-link", "replication-link"
  };

  // Runs kubectl with `args`; throws naming the command when it fails (check) or times out.
  Result Kubectl(const std::vector<std::string>& args, std::chrono::milliseconds timeout, bool check = true);
  // Writes the object to a file in the scratch folder and `kubectl apply -f`s it; remembers it.
  std::string Apply(const std::string& kind, const std::string& prefix, const std::string& spec_yaml,
                    const std::string& group);
  chaos::ActionOutcome DeleteGroup(const std::string& group, const std::string& what);
  std::string ResolveNode(const std::string& node);
  chaos::ActionOutcome LinkFault(const std::string& group, const std::string& selector_yaml,
                                 const std::string& target_yaml, const chaos::LinkFault& fault);

  KubernetesDriverOptions options_;
  process::ScratchDir scratch_;  // the objects applied and the commands' output
  std::atomic<int> calls_{0};    // names each call's output files
  mutable std::mutex mu_;        // guards sequence_, held_, cordoned_ (never held across a Drain)
  int sequence_ = 0;
  std::vector<Held> held_;
  std::map<std::string, std::string> cordoned_;  // scenario node name -> Kubernetes node name
};

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_KUBERNETES_KUBERNETES_CLUSTER_DRIVER_H_
