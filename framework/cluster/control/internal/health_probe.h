// HealthProbe: the readiness probe of one replica — grpc.health.v1 Check of the whole server ("")
// over a channel with short reconnect back-off, so a restarted replica is seen as soon as it serves.
//
//   HealthProbe probe("127.0.0.1:24001");
//   if (probe.Check(std::chrono::milliseconds(400)) == ProbeResult::kServing) { ... }
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_INTERNAL_HEALTH_PROBE_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_INTERNAL_HEALTH_PROBE_H_

#include <chrono>
#include <memory>
#include <string>

namespace grpc {
class Channel;
}  // namespace grpc

namespace aftershock::cluster::internal {

enum class ProbeResult { kServing, kNotServing, kNoAnswer };

class HealthProbe {
 public:
  explicit HealthProbe(const std::string& address);
  ~HealthProbe();
  HealthProbe(const HealthProbe&) = delete;
  HealthProbe& operator=(const HealthProbe&) = delete;

  ProbeResult Check(std::chrono::milliseconds timeout);

 private:
  struct Stub;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<Stub> stub_;
};

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_CONTROL_INTERNAL_HEALTH_PROBE_H_
