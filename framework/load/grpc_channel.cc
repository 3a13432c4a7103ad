#include "framework/load/grpc_channel.h"

#include <arpa/inet.h>

#include <stdexcept>

namespace aftershock::load {

bool IsLoopbackAddress(const std::string& host_port) {
  if (host_port.rfind("[::1]:", 0) == 0) return true;
  const auto colon = host_port.rfind(':');
  if (colon == std::string::npos) return false;
  const std::string host = host_port.substr(0, colon);
  in_addr addr{};
  if (inet_pton(AF_INET, host.c_str(), &addr) != 1) return false;
  return (ntohl(addr.s_addr) >> 24) == 127;
}

std::shared_ptr<grpc::Channel> MakeRoundRobinChannel(const std::vector<std::string>& addresses,
                                                     const ChannelOptions& options) {
  if (addresses.empty()) throw std::invalid_argument("gRPC channel: no target addresses");
  std::string target = "ipv4:";
  bool ipv6 = false;
  const bool by_dns = addresses[0].rfind("dns:", 0) == 0;
  if (by_dns) {
    if (addresses.size() != 1) {
      throw std::invalid_argument("gRPC channel: '" + addresses[0] + "' names its hosts by DNS and stands alone, not in a list");
    }
    // A name cannot be checked for loopback before it resolves; only a run that allows other hosts
    // (Kubernetes mode: a headless Service) may use one.
    if (!options.allow_non_loopback) {
      throw std::invalid_argument("gRPC channel: '" + addresses[0] +
                                  "' names its hosts by DNS, which is allowed only where non-loopback targets are "
                                  "(load goes to 127.0.0.0/8 unless explicitly allowed)");
    }
    target = addresses[0];
  }
  for (std::size_t i = 0; i < addresses.size() && !by_dns; ++i) {
    const std::string& a = addresses[i];
    const auto colon = a.rfind(':');
    if (colon == std::string::npos || colon + 1 == a.size())
      throw std::invalid_argument("gRPC channel: '" + a + "' is not host:port");
    if (!options.allow_non_loopback && !IsLoopbackAddress(a))
      throw std::invalid_argument("gRPC channel: '" + a +
                                  "' is not a loopback address (load goes to 127.0.0.0/8 unless explicitly allowed)");
    if (a.front() == '[') ipv6 = true;
    target += (i ? "," : "") + a;
  }
  if (ipv6) target = "ipv6:" + target.substr(5);
  grpc::ChannelArguments args;
  args.SetLoadBalancingPolicyName("round_robin");
  // Each channel gets its own connections, so several channels really spread the load.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // The runner retries itself, by policy; gRPC's own retries would hide failures from it.
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, options.initial_reconnect_backoff_ms);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, options.initial_reconnect_backoff_ms);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, options.max_reconnect_backoff_ms);
  // A headless Service's answer changes when a pod is replaced; round robin asks the resolver again
  // when a connection fails, and gRPC's default spacing of those asks (30 s) would hold the load
  // on the survivors long after the new pod is ready.
  if (by_dns) args.SetInt(GRPC_ARG_DNS_MIN_TIME_BETWEEN_RESOLUTIONS_MS, 1000);
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

}  // namespace aftershock::load
