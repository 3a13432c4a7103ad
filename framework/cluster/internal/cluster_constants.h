// Constants the cluster's start-up and observation code share, so the halves of PatroniCluster
// (patroni_cluster.cc, patroni_cluster_status.cc) and PostgresInstance cannot drift apart.
//
//   throw std::runtime_error("etcd did not start; log tail:\n" + TailOfFile(log, kLogTailLines));
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_CLUSTER_CONSTANTS_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_CLUSTER_CONSTANTS_H_

#include <chrono>

namespace aftershock::cluster::internal {

// Lines of a process's log quoted in an error about it.
inline constexpr int kLogTailLines = 20;

// PostgreSQL/Patroni members of a PatroniCluster (a, b, c).
inline constexpr int kMembers = 3;

// One request to Patroni's REST API or to etcd's /health.
inline constexpr std::chrono::milliseconds kRestTimeout{1500};

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_CLUSTER_CONSTANTS_H_
