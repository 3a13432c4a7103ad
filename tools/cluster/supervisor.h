// `aftershock-cluster up`: the supervisor process (a LocalCluster of the pseudonym target's replicas
// served over the control socket next to the state file) and the daemonizing parent that waits
// until it reports steady state or its error.
//
//   UpOptions up{.state_path = "/tmp/aftershock-cluster/state", .replicas = 5};
//   return RunUp(up);   // 0 once steady, 1 on failure
#ifndef AFTERSHOCK_TOOLS_CLUSTER_SUPERVISOR_H_
#define AFTERSHOCK_TOOLS_CLUSTER_SUPERVISOR_H_

#include <sys/types.h>

#include <string>

namespace aftershock::cluster::cli {

struct UpOptions {
  std::string state_path;
  bool foreground = false;
  int lease_minutes = 30;
  std::string store = "postgres";  // the pseudonym replicas' store: postgres or memory
  int replicas = 3;                // 1..26: a, b, c, ... on node-a.., zone-a..
  // 0: none. Otherwise the supervisor stops everything once this process is gone (the CTest
  // fixture passes the ctest PID, so an interrupted ctest run leaves nothing running).
  pid_t watch_pid = 0;
  // The supervisor and everything it starts (etcd, Patroni, PostgreSQL, proxies, replicas) run at
  // this nice value: on one machine with the load generator, the generator must keep its schedule
  // (a starved dispatcher turns the run generator-limited, and its figures describe the generator).
  int nice = 5;
};

// Brings the cluster up (daemonized unless up.foreground) and returns the exit status.
int RunUp(const UpOptions& up);

}  // namespace aftershock::cluster::cli

#endif  // AFTERSHOCK_TOOLS_CLUSTER_SUPERVISOR_H_
