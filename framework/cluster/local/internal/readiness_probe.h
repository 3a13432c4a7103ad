// ReadinessCheck: the readiness probe of one replica, of the kind its ReplicaSpec names - gRPC
// health (grpc.health.v1 Check of the whole server "", over a channel with short reconnect back-off,
// so a restarted replica is seen as soon as it serves), an HTTP GET of a path, or a TCP connect.
//
//   ReadinessCheck probe(24001, spec.probe);
//   if (probe.Check(std::chrono::milliseconds(400)) == ProbeResult::kServing) { ... }
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_READINESS_PROBE_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_READINESS_PROBE_H_

#include <chrono>
#include <memory>
#include <string>

#include "framework/cluster/local/replica_spec.h"

namespace grpc {
class Channel;
}  // namespace grpc

namespace aftershock::cluster::internal {

enum class ProbeResult { kServing, kNotServing, kNoAnswer };

class ReadinessCheck {
 public:
  ReadinessCheck(int port, ReadinessProbe probe);
  ~ReadinessCheck();
  ReadinessCheck(const ReadinessCheck&) = delete;
  ReadinessCheck& operator=(const ReadinessCheck&) = delete;

  ProbeResult Check(std::chrono::milliseconds timeout);

 private:
  struct Stub;
  int port_;
  ReadinessProbe probe_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<Stub> stub_;
};

// One TCP connect to 127.0.0.1:port within `timeout`.
bool TcpConnects(int port, std::chrono::milliseconds timeout);

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_READINESS_PROBE_H_
