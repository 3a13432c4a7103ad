// aftershock-cluster: the embedded local cluster supervisor and its CLI.
//
//   aftershock-cluster up [--foreground] [--lease-minutes=N] [--state=PATH] [--store=memory|postgres]
//                         [--replicas=N] [--watch-pid=PID]
//   aftershock-cluster status | down | kill-replica [NAME] | kill-primary | partition --seconds=N
//                      | replication sync|async [--hold=D] | replication-lag --latency-ms=N --seconds=S
//   aftershock-cluster rolling-restart | drain NODE [--hold=D] | uncordon NODE | collect DIR
//   aftershock-cluster defects [REPLICA] --internal-rate=F ... [--hold=D] | defects --clear | release
//
// Every fault a verb leaves in place (async replication, a drain's cordon, defects) is held under
// the supervisor's fault lease 'aftershock-cli' for --hold (default 10m): the supervisor reverts it
// then, or at `release`. partition and replication-lag hold a renewing lease while they wait, so a
// killed CLI's fault is reverted within seconds.
// `up` daemonizes by default: the parent waits until the supervisor child reports steady state (or
// its error) and exits 0 (1 on failure). The supervisor serves the control API on a unix socket next
// to the state file, and stops everything on `down`, SIGINT/SIGTERM, or when the idle lease expires.
// `up` locks the state (flock on STATE.lock, held by the supervisor while it lives): a second `up`
// on it prints "already up" (exit 0) when that supervisor is up, and refuses naming the lock
// holder's pid (exit 1) while it is still coming up or stopping.
// Exit status: 0 done, 1 failed, 2 bad usage.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fixtures/targets/pseudonym/replica_spec.h"
#include "framework/cluster/control/cluster_client.h"
#include "framework/cluster/control/internal/state_file.h"
#include "framework/cluster/local/replica_spec.h"
#include "tools/cluster/cli_flags.h"
#include "tools/cluster/supervisor.h"

namespace aftershock::cluster {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using cli::kExitFailed;
using cli::kExitOk;
using cli::kExitUsage;
using cli::ParseDuration;
using cli::ParseNumber;
using cli::ProcessAlive;
constexpr auto kDownTimeout = std::chrono::seconds(120);
// The fault lease the CLI holds faults it leaves in place under.
constexpr const char* kCliHolder = "aftershock-cli";
constexpr std::chrono::milliseconds kDefaultHold = std::chrono::minutes(10);
constexpr std::chrono::milliseconds kMaxHold = std::chrono::hours(24);

const char kUsage[] =
    "usage: aftershock-cluster VERB [flags]\n"
    "  up [--foreground] [--lease-minutes=N] [--store=memory|postgres] [--replicas=N] [--watch-pid=PID] [--nice=N]\n"
    "                          bring the local cluster up (daemonized unless --foreground), wait for steady state;\n"
    "                          N replicas a, b, c, ... of the pseudonym service (default 3, at most 26);\n"
    "                          every cluster process at nice N (0..19, default 5: the load generator keeps its schedule)\n"
    "  status                  print every process, role and readiness\n"
    "  down                    stop everything the supervisor started\n"
    "  kill-replica [NAME]     SIGKILL replica NAME (a, b, ...; random when omitted); it is restarted\n"
    "  kill-primary            kill the database primary (refused unless healthy); it rejoins\n"
    "  partition --seconds=N   blackhole every service -> database link for N s, then clear\n"
    "  replication sync|async [--max-lag-bytes=N] [--hold=D]\n"
    "                          Patroni's replication mode (async: maximum_lag_on_failover N, default 1 MiB)\n"
    "  replication-lag --latency-ms=N --seconds=S\n"
    "                          delay every replication link by N ms for S s, then clear\n"
    "  rolling-restart         restart the replicas one at a time\n"
    "  drain NODE [--hold=D]   cordon NODE (node-a, node-b, ...) and evict its replica\n"
    "  uncordon NODE           uncordon NODE; its replica starts again\n"
    "  defects [REPLICA] [--internal-rate=F] [--unavailable-rate=F] [--stall-rate=F --stall-ms=N]\n"
    "          [--stall-until-ms=N] [--forget-fraction=F] [--non-idempotent] [--ack-before-commit] [--hold=D]\n"
    "                          seeded TEST-ONLY defects on REPLICA (a, b, ...; all when omitted)\n"
    "  defects [REPLICA] --clear  no defects\n"
    "  release                 end the CLI's fault lease: the supervisor reverts what it held within seconds\n"
    "  collect DIR             copy every log and a status snapshot into DIR\n"
    "--hold=D (async, drain, defects): the fault lease 'aftershock-cli' holds the fault for D (e.g. 90s, 30m,\n"
    "  2h; default 10m, at most 24h); then the supervisor reverts it (every fault it holds, once no lease is live)\n"
    "flags for every verb:\n"
    "  --state=PATH            state file (default $AFTERSHOCK_CLUSTER_STATE, else state in the per-user runtime\n"
    "                          folder $XDG_RUNTIME_DIR/aftershock or /tmp/aftershock-<uid>); its folder is private:\n"
    "                          created 0700, refused when a symlink, another user's, or group/world-writable\n";

int Usage(const std::string& error) {
  std::cerr << "aftershock-cluster: " << error << "\n" << kUsage;
  return kExitUsage;
}

struct Command {
  std::string verb;
  std::vector<std::string> positional;
  std::map<std::string, std::string> flags;  // name -> value ("" for bare flags)
};



// ---- the client verbs -------------------------------------------------------------------------

void PrintStatus(const v1::ClusterStatus& status) {
  std::cout << "steady: " << (status.steady() ? "yes" : "no (" + status.not_steady_reason() + ")") << "\n";
  std::cout << "supervisor pid " << status.supervisor_pid() << ", replica store " << status.replica_store()
            << ", primary " << (status.primary().empty() ? "(none)" : status.primary()) << ", replication "
            << status.replication() << "\n";
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::cout << "lease expires in " << (status.lease_expires_unix_ms() - now_ms) / 1000 << " s\n";
  const std::vector<std::string> faults = FaultsInForce(status);
  std::cout << "faults in force: " << (faults.empty() ? "none (clean)" : "") << "\n";
  for (const std::string& fault : faults) std::cout << "  " << fault << "\n";
  for (const v1::FaultLeaseHold& hold : status.fault_lease_holders()) {
    std::cout << "fault lease held by '" << hold.holder() << "' (ttl " << hold.ttl_ms() << " ms, expires in "
              << std::max<std::int64_t>(0, hold.expires_unix_ms() - now_ms) / 1000 << " s)\n";
  }
  if (status.last_fault_lease_expiry().unix_ms() != 0) {
    const v1::FaultLeaseExpiry& e = status.last_fault_lease_expiry();
    std::cout << "last fault lease expiry " << (now_ms - e.unix_ms()) / 1000 << " s ago (" << status.fault_lease_expiries()
              << " in all): " << e.reason() << "; reverted " << e.reverted() << "\n";
  }
  for (const v1::Replica& r : status.replicas()) {
    std::cout << "replica " << r.name() << "  " << r.node() << " " << r.zone() << "  " << r.address() << "  pid "
              << r.pid() << "  " << (r.ready() ? "ready" : "NOT READY") << "  restarts " << r.restarts()
              << (r.node_cordoned() ? "  (node cordoned)" : "")
              << (r.defects().empty() ? "" : "  defects {" + r.defects() + "}") << "\n";
  }
  for (const v1::DatabaseMember& m : status.members()) {
    std::cout << "member " << m.name() << "  " << m.node() << "  " << (m.role().empty() ? "-" : m.role()) << "  "
              << m.state() << "  timeline " << m.timeline() << "  lag " << m.lag_bytes() << "  pg_port " << m.pg_port()
              << "  proxy_port " << m.proxy_port() << "  patroni pid " << m.patroni_pid() << "  postmaster pid "
              << m.postmaster_pid();
    const v1::LinkFaults& f = m.link_faults();
    if (f.blackhole() || f.reset() || f.latency_ms() || f.jitter_ms() || f.bandwidth_bytes_per_second()) {
      std::cout << "  link faults {" << f.ShortDebugString() << "}";
    }
    if (m.replication_proxy_port() != 0) std::cout << "  replication_proxy_port " << m.replication_proxy_port();
    const v1::LinkFaults& r = m.replication_link_faults();
    if (r.blackhole() || r.reset() || r.latency_ms() || r.jitter_ms() || r.bandwidth_bytes_per_second()) {
      std::cout << "  replication link faults {" << r.ShortDebugString() << "}";
    }
    std::cout << "\n";
  }
}

int RunDown(const std::string& state_path) {
  ClusterClient client = ClusterClient::Attach(state_path);
  const pid_t pid = client.state().pid;
  std::cout << client.Shutdown().summary() << "\n";
  const auto deadline = Clock::now() + kDownTimeout;
  while (ProcessAlive(pid) || fs::exists(state_path)) {
    if (Clock::now() >= deadline) {
      std::cerr << "aftershock-cluster down: supervisor pid " << pid << " still running after " << kDownTimeout.count()
                << " s\n";
      return kExitFailed;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::cout << "aftershock-cluster down: supervisor pid " << pid << " and everything it started are stopped\n";
  return kExitOk;
}

// SIGINT/SIGTERM blocked in this thread and every thread it starts afterwards (the lease renewer).
sigset_t BlockStopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  return stop_signals;
}

// Waits `seconds` or until SIGINT/SIGTERM, so that the caller always lifts its fault, also on Ctrl-C.
void HoldFault(int seconds) {
  const sigset_t stop_signals = BlockStopSignals();
  timespec wait{seconds, 0};
  ::sigtimedwait(&stop_signals, nullptr, &wait);
}

void HoldForCli(ClusterClient& client, std::chrono::milliseconds hold) {
  client.RenewFaultLease(kCliHolder, hold);
  std::cout << "held by the fault lease '" << kCliHolder << "' for " << cli::FormatDuration(hold)
            << ": the supervisor reverts it then, or at `aftershock-cluster release`\n";
}

// For a fault the CLI lifts itself: a renewing lease while it waits, so a killed CLI's fault expires.
std::unique_ptr<FaultLeaseHolder> HoldWhileRunning(ClusterClient& client, const std::string& verb) {
  return std::make_unique<FaultLeaseHolder>(client, FaultLeaseOptions{.holder = std::string(kCliHolder) + " " + verb});
}

int RunPartition(ClusterClient& client, int seconds) {
  BlockStopSignals();
  const auto lease = HoldWhileRunning(client, "partition");
  v1::LinkFaults faults;
  faults.set_blackhole(true);
  std::cout << client.SetDatabaseLinkFaults("", faults).summary() << "\n";
  HoldFault(seconds);
  std::cout << client.ClearDatabaseLinkFaults().summary() << "\n";
  return kExitOk;
}

int RunReplicationLag(ClusterClient& client, int latency_ms, int seconds) {
  BlockStopSignals();
  const auto lease = HoldWhileRunning(client, "replication-lag");
  v1::LinkFaults faults;
  faults.set_latency_ms(static_cast<std::uint32_t>(latency_ms));
  std::cout << client.SetReplicationLinkFaults("", faults).summary() << "\n";
  HoldFault(seconds);
  std::cout << client.ClearReplicationLinkFaults().summary() << "\n";
  return kExitOk;
}

int Main(int argc, char** argv) {
  if (argc < 2) return Usage("no verb given");
  Command command;
  command.verb = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) == 0) {
      const std::size_t eq = arg.find('=');
      command.flags[arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2)] =
          eq == std::string::npos ? "" : arg.substr(eq + 1);
    } else {
      command.positional.push_back(arg);
    }
  }
  if (command.verb == "--help" || command.verb == "help" || command.verb == "-h") {
    std::cout << kUsage;
    return kExitOk;
  }
  const std::string state_path =
      command.flags.count("state") ? command.flags["state"] : internal::DefaultStateFilePath();
  if (state_path.empty()) return Usage("--state needs a path");

  struct VerbSpec {
    std::vector<std::string> flags;
    std::size_t min_args;
    std::size_t max_args;
  };
  const std::map<std::string, VerbSpec> verbs = {
      {"up", {{"foreground", "lease-minutes", "store", "replicas", "watch-pid", "nice"}, 0, 0}},
      {"status", {{}, 0, 0}},
      {"down", {{}, 0, 0}},
      {"kill-replica", {{}, 0, 1}},
      {"kill-primary", {{}, 0, 0}},
      {"partition", {{"seconds"}, 0, 0}},
      {"replication", {{"max-lag-bytes", "hold"}, 1, 1}},
      {"replication-lag", {{"latency-ms", "seconds"}, 0, 0}},
      {"rolling-restart", {{}, 0, 0}},
      {"drain", {{"hold"}, 1, 1}},
      {"defects",
       {{"internal-rate", "unavailable-rate", "stall-rate", "stall-ms", "stall-until-ms", "forget-fraction",
         "non-idempotent", "ack-before-commit", "clear", "hold"},
        0,
        1}},
      {"release", {{}, 0, 0}},
      {"uncordon", {{}, 1, 1}},
      {"collect", {{}, 1, 1}},
  };
  const auto spec = verbs.find(command.verb);
  if (spec == verbs.end()) return Usage("unknown verb '" + command.verb + "'");
  for (const auto& [name, value] : command.flags) {
    if (name == "state") continue;
    const auto& allowed = spec->second.flags;
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      return Usage("unknown flag --" + name + " for '" + command.verb + "'");
    }
  }
  if (command.positional.size() < spec->second.min_args || command.positional.size() > spec->second.max_args) {
    return Usage("wrong number of arguments for '" + command.verb + "'");
  }
  const std::string arg = command.positional.empty() ? "" : command.positional[0];

  if (command.verb == "up") {
    cli::UpOptions up;
    up.state_path = fs::absolute(state_path).string();
    if (command.flags.count("foreground")) {
      if (!command.flags["foreground"].empty()) return Usage("--foreground takes no value");
      up.foreground = true;
    }
    if (command.flags.count("lease-minutes")) {
      const std::optional<int> minutes = ParseNumber(command.flags["lease-minutes"]);
      if (!minutes || *minutes < 1) return Usage("--lease-minutes needs a whole number of minutes >= 1");
      up.lease_minutes = *minutes;
    }
    if (command.flags.count("watch-pid")) {
      const std::optional<int> pid = ParseNumber(command.flags["watch-pid"]);
      if (!pid || *pid < 1) return Usage("--watch-pid needs a process id >= 1");
      if (::kill(*pid, 0) != 0 && errno == ESRCH) return Usage("--watch-pid: no process " + std::to_string(*pid));
      up.watch_pid = *pid;
    }
    if (command.flags.count("store")) {
      up.store = command.flags["store"];
      if (up.store == "auto") up.store = "postgres";  // the old default: the server has a PostgreSQL store
      if (up.store != "memory" && up.store != "postgres") return Usage("--store must be memory or postgres");
    }
    if (command.flags.count("replicas")) {
      const std::optional<int> n = ParseNumber(command.flags["replicas"]);
      if (!n || *n < 1 || *n > kMaxReplicas) {
        return Usage("--replicas needs a whole number from 1 to " + std::to_string(kMaxReplicas) +
                     " (one letter a..z per replica), not '" + command.flags["replicas"] + "'");
      }
      up.replicas = *n;
    }
    if (command.flags.count("nice")) {
      const std::optional<int> n = ParseNumber(command.flags["nice"]);
      if (!n || *n < 0 || *n > 19) return Usage("--nice needs a whole number from 0 to 19, not '" + command.flags["nice"] + "'");
      up.nice = *n;
    }
    return cli::RunUp(up);
  }

  std::optional<int> partition_seconds;
  if (command.verb == "partition") {
    partition_seconds = ParseNumber(command.flags.count("seconds") ? command.flags["seconds"] : "");
    if (!partition_seconds || *partition_seconds < 1) return Usage("partition needs --seconds=N (N >= 1)");
  }
  std::optional<int> lag_latency_ms, lag_seconds;
  if (command.verb == "replication-lag") {
    lag_latency_ms = ParseNumber(command.flags.count("latency-ms") ? command.flags["latency-ms"] : "");
    lag_seconds = ParseNumber(command.flags.count("seconds") ? command.flags["seconds"] : "");
    if (!lag_latency_ms || *lag_latency_ms < 1) return Usage("replication-lag needs --latency-ms=N (N >= 1)");
    if (!lag_seconds || *lag_seconds < 1) return Usage("replication-lag needs --seconds=S (S >= 1)");
  }
  std::int64_t max_lag_bytes = 0;
  if (command.verb == "replication") {
    if (arg != "sync" && arg != "async") return Usage("replication takes sync or async, not '" + arg + "'");
    if (command.flags.count("max-lag-bytes")) {
      if (arg != "async") return Usage("--max-lag-bytes applies to async only");
      const std::optional<int> bytes = ParseNumber(command.flags["max-lag-bytes"]);
      if (!bytes || *bytes < 1) return Usage("--max-lag-bytes needs a whole number of bytes >= 1");
      max_lag_bytes = *bytes;
    }
  }
  std::chrono::milliseconds hold = kDefaultHold;
  if (command.flags.count("hold")) {
    if (command.verb == "replication" && arg != "async") return Usage("--hold applies to replication async only");
    const std::optional<std::chrono::milliseconds> d = ParseDuration(command.flags["hold"]);
    if (!d || d->count() < 1000 || *d > kMaxHold) {
      return Usage("--hold needs a duration from 1s to 24h with a unit (e.g. 90s, 30m, 2h), not '" +
                   command.flags["hold"] + "'");
    }
    hold = *d;
  }
  v1::ReplicaDefectsRequest defects;
  if (command.verb == "defects") {
    defects.set_replica(arg);
    const bool clear = command.flags.count("clear") > 0;
    for (const char* bare : {"clear", "non-idempotent", "ack-before-commit"}) {
      if (command.flags.count(bare) && !command.flags[bare].empty()) return Usage(std::string("--") + bare + " takes no value");
    }
    if (clear && command.flags.size() - command.flags.count("state") > 1) {
      return Usage("defects --clear takes no other flag");
    }
    // The flags are the pseudonym target's defect keys (the CLI runs its spec); bare ones mean true.
    for (const auto& [name, value] : command.flags) {
      if (name == "state" || name == "hold" || name == "clear") continue;
      (*defects.mutable_defects())[name] = value.empty() ? "true" : value;
    }
    try {
      pseudonym::DefectsFromMap({defects.defects().begin(), defects.defects().end()});
    } catch (const std::invalid_argument& e) {
      return Usage(std::string("defects: ") + e.what());
    }
    if (!clear && defects.defects().empty()) return Usage("defects needs at least one defect flag, or --clear");
  }
  try {
    if (command.verb == "down") return RunDown(state_path);
    ClusterClient client = ClusterClient::Attach(state_path);
    if (command.verb == "status") {
      PrintStatus(client.Status());
    } else if (command.verb == "kill-replica") {
      std::cout << client.KillReplica(arg).summary() << "\n";
    } else if (command.verb == "kill-primary") {
      std::cout << client.KillDatabasePrimary().summary() << "\n";
    } else if (command.verb == "partition") {
      return RunPartition(client, *partition_seconds);
    } else if (command.verb == "replication") {
      if (arg == "async") HoldForCli(client, hold);
      std::cout << client.SetReplicationMode(arg == "sync", max_lag_bytes).summary() << "\n";
    } else if (command.verb == "replication-lag") {
      return RunReplicationLag(client, *lag_latency_ms, *lag_seconds);
    } else if (command.verb == "rolling-restart") {
      std::cout << client.RollingRestart().summary() << "\n";
    } else if (command.verb == "drain") {
      HoldForCli(client, hold);
      std::cout << client.Drain(arg).summary() << "\n";
    } else if (command.verb == "defects") {
      if (!defects.defects().empty()) HoldForCli(client, hold);
      std::cout << client.SetReplicaDefects(defects).summary() << "\n";
    } else if (command.verb == "release") {
      std::cout << client.ReleaseFaultLease(kCliHolder).summary()
                << "; the supervisor reverts what no lease holds any more within a few seconds\n";
    } else if (command.verb == "uncordon") {
      std::cout << client.Uncordon(arg).summary() << "\n";
    } else if (command.verb == "collect") {
      std::cout << client.CollectArtifacts(fs::absolute(arg).string()).summary() << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "aftershock-cluster " << command.verb << ": " << e.what() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace
}  // namespace aftershock::cluster

int main(int argc, char** argv) { return aftershock::cluster::Main(argc, argv); }
