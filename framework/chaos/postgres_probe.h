// How the cluster faults see a database link with their own eyes: a TCP connect and a PostgreSQL
// SSLRequest through a port (a member's service or replication proxy), told apart as answered,
// hung (a blackhole, or latency longer than the timeout) or closed (nothing listening, member down).
//
//   PostgresProbeResult r = ProbePostgres(state.members[0].service_port, std::chrono::seconds(1));
//   ProbeRound round = ProbeMembers(driver.Observe(), ServicePort, std::chrono::seconds(1), false);
//   if (round.hung == round.probed) { ... every link hangs ... }
#ifndef AFTERSHOCK_FRAMEWORK_CHAOS_POSTGRES_PROBE_H_
#define AFTERSHOCK_FRAMEWORK_CHAOS_POSTGRES_PROBE_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "framework/chaos/cluster_driver.h"

namespace aftershock::chaos {

enum class PostgresProbe { kAnswered, kHung, kClosed };
struct PostgresProbeResult {
  PostgresProbe outcome = PostgresProbe::kClosed;
  std::chrono::milliseconds elapsed{0};
};
PostgresProbeResult ProbePostgres(int port, std::chrono::milliseconds timeout);

// One probe of every member's port (in parallel), and what each saw: "pg-a no answer in 1000 ms,
// pg-b answered in 3 ms".
struct ProbeRound {
  std::string text;
  std::size_t probed = 0, hung = 0, answered = 0, closed = 0;
};
// Members whose port_of() is 0 are skipped; with `running_only`, members not "running" too.
ProbeRound ProbeMembers(const ClusterState& state, const std::function<int(const DatabaseMemberState&)>& port_of,
                        std::chrono::milliseconds timeout, bool running_only);

inline int ServicePort(const DatabaseMemberState& m) { return m.service_port; }
inline int ReplicationPort(const DatabaseMemberState& m) { return m.replication_port; }

}  // namespace aftershock::chaos

#endif  // AFTERSHOCK_FRAMEWORK_CHAOS_POSTGRES_PROBE_H_
