// ReplicaSpec: what the local cluster runs as "the replicas" - given by the target, so the cluster
// knows no target. The binary, its arguments with placeholders, how readiness is probed, how many,
// the stop grace, the store it reports, and an optional hook that applies TEST-ONLY defects.
//
//   ReplicaSpec spec;
//   spec.binary = "/usr/bin/my-service";
//   spec.args = {"--listen={address}", "--db={conninfo}", "--name={name}"};
//   spec.probe = {.kind = ReadinessProbe::Kind::kHttp, .http_path = "/healthz"};
//   spec.count = 5;                                      // names a..e, nodes node-a.., zones zone-a..
//   LocalClusterOptions options;
//   options.replicas = spec;
//
// Placeholders (every one may appear anywhere inside an argument): {port} {address} (127.0.0.1:PORT)
// {conninfo} (libpq, through the fault proxies, follows the primary) {name} {node} {zone}
// {grace_seconds}. An unknown {placeholder} is an error naming it (ValidateReplicaSpec).
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_REPLICA_SPEC_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_REPLICA_SPEC_H_

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aftershock::cluster {

struct ReadinessProbe {
  enum class Kind {
    kGrpcHealth,  // grpc.health.v1 Check of the whole server (""): SERVING = ready, NOT_SERVING = draining
    kHttp,        // GET http_path: 2xx = ready, any other answer = not ready (draining)
    kTcp,         // a TCP connect succeeds = ready
  };
  Kind kind = Kind::kGrpcHealth;
  std::string http_path = "/healthz";
};

// What a defects hook did, for the status and the fault lease.
struct AppliedDefects {
  // Text form of the defects now in force ("" = none): shown in Status().replicas[].defects.
  std::string text{};
  // Set when they end by themselves after this long (e.g. a stall window): not held after that.
  std::optional<std::chrono::milliseconds> ends_after{};
};

// Applies `defects` (the control API's opaque key/value map; empty = clear every defect) to the
// replica serving at `address`. Throws std::invalid_argument for a key or value it does not know
// (the control API answers INVALID_ARGUMENT), anything else when the replica did not take them.
using DefectsHook =
    std::function<AppliedDefects(const std::string& address, const std::map<std::string, std::string>& defects)>;

struct ReplicaSpec {
  std::string binary{};              // absolute path of the program
  std::vector<std::string> args{};   // with placeholders, see above
  ReadinessProbe probe{};
  int count = 3;                   // 1..kMaxReplicas
  std::chrono::milliseconds grace{10000};  // SIGTERM -> SIGKILL on stop/evict ({grace_seconds} too)
  std::string store{};               // reported as Status().replica_store (e.g. "postgres"); informational
  DefectsHook defects{};             // empty: SetReplicaDefects answers UNIMPLEMENTED
};

// Names a..z: one letter per replica.
inline constexpr int kMaxReplicas = 26;

// Names what is wrong (no binary, count out of range, an unknown placeholder); "" when valid.
std::string ValidateReplicaSpec(const ReplicaSpec& spec);

// The values the placeholders stand for, for one replica.
struct ReplicaPlaceholders {
  int port = 0;
  std::string conninfo{};
  std::string name{};
  std::string node{};
  std::string zone{};
  std::chrono::milliseconds grace{0};
};

// The spec's arguments with every placeholder replaced.
std::vector<std::string> ExpandReplicaArgs(const std::vector<std::string>& args, const ReplicaPlaceholders& values);

// "a".."z" for index 0..25.
std::string ReplicaName(int index);

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_REPLICA_SPEC_H_
