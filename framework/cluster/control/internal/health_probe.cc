#include "framework/cluster/control/internal/health_probe.h"

#include <grpcpp/grpcpp.h>

#include "fixtures/targets/pseudonym/health.grpc.pb.h"

namespace aftershock::cluster::internal {

struct HealthProbe::Stub {
  std::unique_ptr<grpc::health::v1::Health::Stub> health;
};

HealthProbe::HealthProbe(const std::string& address) : stub_(std::make_unique<Stub>()) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  channel_ = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  stub_->health = grpc::health::v1::Health::NewStub(channel_);
}

HealthProbe::~HealthProbe() = default;

ProbeResult HealthProbe::Check(std::chrono::milliseconds timeout) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  grpc::health::v1::HealthCheckRequest request;  // service "" = the whole server
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub_->health->Check(&context, request, &response);
  if (!status.ok()) return ProbeResult::kNoAnswer;
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING ? ProbeResult::kServing
                                                                             : ProbeResult::kNotServing;
}

}  // namespace aftershock::cluster::internal
