// LinkFaultSet: the fault proxies on one path of the local cluster's database - the service ->
// database links, or the replication links standbys stream through - one per member, and the
// faults in force on them. Not thread-safe: its owner (Database) serializes the calls.
//
//   LinkFaultSet links("database", [&] { lease.FaultApplied(hold); });
//   links.Add("a", FaultProxy::Start("pg-a", "127.0.0.1", 0, "127.0.0.1", 5432));
//   links.Set("pg-a", faults);          // "" = every member's link
//   links.Clear();
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_LINK_FAULTS_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_LINK_FAULTS_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "framework/cluster/control/cluster_control.pb.h"
#include "framework/cluster/fault_proxy/fault_proxy.h"

namespace aftershock::cluster {

class LinkFaultSet {
 public:
  // `what` names the path in summaries and errors ("database", "replication").
  LinkFaultSet(std::string what, std::function<void()> fault_applied)
      : what_(std::move(what)), fault_applied_(std::move(fault_applied)) {}

  // `member` is the member's short name ("a").
  void Add(std::string member, std::unique_ptr<FaultProxy> proxy);
  // member "" = every link; "pg-a" or "a" = that member's. INVALID_ARGUMENT for an unknown one,
  // FAILED_PRECONDITION when the path has no proxies.
  v1::ActionResult Set(const std::string& member, const ProxyFaults& faults);
  v1::ActionResult Clear();
  // "pg-a {latency_ms: 20}" for each link with a fault in force.
  std::vector<std::string> InForce() const;
  // nullptr when the member has no proxy on this path.
  const FaultProxy* ProxyOf(const std::string& member) const;
  bool empty() const { return links_.empty(); }
  // Stops every proxy.
  void StopAll() { links_.clear(); }

 private:
  std::string what_;
  std::function<void()> fault_applied_;
  std::vector<std::pair<std::string, std::unique_ptr<FaultProxy>>> links_;
};

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_LINK_FAULTS_H_
