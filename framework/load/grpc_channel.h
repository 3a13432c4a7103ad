// Client channels for gRPC workloads: client-side round robin over several replica addresses.
//
// A ClusterIP-style single connection would pin a whole run to one replica and make a replica kill
// far easier to pass than it should be (seed 000, section 6), so load is balanced per request.
// Addresses must be on loopback unless explicitly allowed (safety rule: load goes to 127.0.0.0/8).
// One "dns:///host:port" target instead of addresses (a Kubernetes headless Service: every ready
// pod, followed as pods are replaced) needs that allowance too: a name is not checkable beforehand.
//
//   auto channel = MakeRoundRobinChannel({"127.0.0.1:50051", "127.0.0.1:50052"});
//   auto stub = my::Service::NewStub(channel);
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_GRPC_CHANNEL_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_GRPC_CHANNEL_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

namespace aftershock::load {

struct ChannelOptions {
  bool allow_non_loopback = false;
  // Reconnect quickly after a replica comes back (gRPC's default back-off grows to 120 s).
  int initial_reconnect_backoff_ms = 100;
  int max_reconnect_backoff_ms = 1000;
};

// Throws std::invalid_argument for an empty list, a malformed "host:port", a non-loopback host, or a
// "dns:" target without allow_non_loopback or beside other addresses.
std::shared_ptr<grpc::Channel> MakeRoundRobinChannel(const std::vector<std::string>& addresses,
                                                     const ChannelOptions& options = {});

// True for 127.0.0.0/8 and [::1].
bool IsLoopbackAddress(const std::string& host_port);

}  // namespace aftershock::load

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_GRPC_CHANNEL_H_
