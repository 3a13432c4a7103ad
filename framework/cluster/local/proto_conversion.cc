#include "framework/cluster/local/proto_conversion.h"

namespace aftershock::cluster {

ProxyFaults ProxyFaultsFromProto(const v1::LinkFaults& faults) {
  ProxyFaults out;
  out.latency = std::chrono::milliseconds(faults.latency_ms());
  out.jitter = std::chrono::milliseconds(faults.jitter_ms());
  out.blackhole = faults.blackhole();
  out.reset = faults.reset();
  out.bandwidth_bytes_per_second = faults.bandwidth_bytes_per_second();
  return out;
}

v1::LinkFaults ProxyFaultsToProto(const ProxyFaults& faults) {
  v1::LinkFaults out;
  out.set_latency_ms(static_cast<std::uint32_t>(faults.latency.count()));
  out.set_jitter_ms(static_cast<std::uint32_t>(faults.jitter.count()));
  out.set_blackhole(faults.blackhole);
  out.set_reset(faults.reset);
  out.set_bandwidth_bytes_per_second(faults.bandwidth_bytes_per_second);
  return out;
}

bool AnyFault(const ProxyFaults& f) {
  return f.latency.count() != 0 || f.jitter.count() != 0 || f.blackhole || f.reset || f.bandwidth_bytes_per_second != 0;
}

std::map<std::string, std::string> DefectsFromRequest(const v1::ReplicaDefectsRequest& request) {
  return {request.defects().begin(), request.defects().end()};
}

}  // namespace aftershock::cluster
