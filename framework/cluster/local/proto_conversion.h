// Conversions between the control API's messages and the local cluster's own types.
//
//   ProxyFaults faults = ProxyFaultsFromProto(request.faults());
//   *member->mutable_link_faults() = ProxyFaultsToProto(proxy.faults());
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_PROTO_CONVERSION_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_PROTO_CONVERSION_H_

#include <map>
#include <string>

#include "framework/cluster/control/cluster_control.pb.h"
#include "framework/cluster/fault_proxy/fault_proxy.h"

namespace aftershock::cluster {

ProxyFaults ProxyFaultsFromProto(const v1::LinkFaults& faults);
v1::LinkFaults ProxyFaultsToProto(const ProxyFaults& faults);
// Any fault at all (latency, jitter, blackhole, reset or a bandwidth limit).
bool AnyFault(const ProxyFaults& faults);
// The request's opaque defects, as the replica spec's hook takes them.
std::map<std::string, std::string> DefectsFromRequest(const v1::ReplicaDefectsRequest& request);

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_PROTO_CONVERSION_H_
