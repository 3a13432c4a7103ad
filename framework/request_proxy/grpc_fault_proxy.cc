#include "framework/request_proxy/grpc_fault_proxy.h"

#include <grpcpp/alarm.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "framework/net/loopback.h"

namespace aftershock::request_proxy {
namespace {

std::chrono::system_clock::time_point After(std::chrono::milliseconds delay) {
  return std::chrono::system_clock::now() + delay;
}

grpc::ByteBuffer Truncated(const grpc::ByteBuffer& buffer, std::size_t keep) {
  std::vector<grpc::Slice> slices;
  buffer.Dump(&slices);
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    if (bytes.size() >= keep) break;
  }
  bytes.resize(std::min(bytes.size(), keep));
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

// One call: read the request message, then fault / forward / answer. Each step starts the next,
// so no two run at once; OnDone deletes it.
class ProxyCall : public grpc::ServerGenericBidiReactor {
 public:
  ProxyCall(grpc::GenericCallbackServerContext* context, RuleTable& rules, grpc::GenericStub& stub)
      : context_(context), rules_(rules), stub_(stub) {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::INTERNAL, "aftershock request proxy: no request message"));
      return;
    }
    if (cancelled_.load()) {
      Finish(grpc::Status::CANCELLED);
      return;
    }
    rule_ = rules_.Match(Protocol::kGrpc, context_->method());
    if (rule_) {
      if (const auto* status = std::get_if<StatusAction>(&rule_->action)) {
        context_->AddTrailingMetadata("x-aftershock-fault", rule_->id);
        Finish(grpc::Status(static_cast<grpc::StatusCode>(status->code),
                            "aftershock request proxy: rule '" + rule_->id + "'"));
        return;
      }
      if (const auto* delay = std::get_if<DelayRequestAction>(&rule_->action)) {
        alarm_.Set(After(delay->delay), [this](bool fired) { fired ? Forward() : Finish(grpc::Status::CANCELLED); });
        return;
      }
    }
    Forward();
  }

  void OnWriteDone(bool /*ok*/) override {}
  void OnDone() override { delete this; }
  // The client went away or the server shuts down: end a pending delay now (its callback then
  // finishes the call) and cancel the upstream call.
  void OnCancel() override {
    cancelled_.store(true);
    alarm_.Cancel();
    upstream_context_.TryCancel();
  }

 private:
  void Forward() {
    for (const auto& [key, value] : context_->client_metadata()) {
      const std::string name(key.data(), key.size());
      if (name.rfind("grpc-", 0) == 0 || name.rfind(":", 0) == 0 || name == "user-agent" || name == "te" ||
          name == "content-type" || name == "host") {
        continue;
      }
      upstream_context_.AddMetadata(name, std::string(value.data(), value.size()));
    }
    if (context_->deadline() != std::chrono::system_clock::time_point::max()) {
      upstream_context_.set_deadline(context_->deadline());
    }
    stub_.UnaryCall(&upstream_context_, context_->method(), grpc::StubOptions(), &request_, &response_,
                    [this](grpc::Status status) { OnUpstreamDone(std::move(status)); });
  }

  void OnUpstreamDone(grpc::Status status) {
    upstream_status_ = std::move(status);
    if (rule_) {
      if (const auto* delay = std::get_if<DelayResponseAction>(&rule_->action)) {
        alarm_.Set(After(delay->delay), [this](bool fired) { fired ? Answer() : Finish(grpc::Status::CANCELLED); });
        return;
      }
    }
    Answer();
  }

  void Answer() {
    if (!upstream_status_.ok()) {
      Finish(upstream_status_);
      return;
    }
    if (rule_) {
      if (const auto* truncate = std::get_if<TruncateBodyAction>(&rule_->action)) {
        response_ = Truncated(response_, static_cast<std::size_t>(truncate->keep_bytes));
      }
      context_->AddTrailingMetadata("x-aftershock-fault", rule_->id);
    }
    StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
  }

  grpc::GenericCallbackServerContext* context_;
  RuleTable& rules_;
  grpc::GenericStub& stub_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  grpc::ClientContext upstream_context_;
  grpc::Status upstream_status_;
  std::optional<RequestRule> rule_;
  grpc::Alarm alarm_;
  std::atomic<bool> cancelled_{false};
};

class Service : public grpc::CallbackGenericService {
 public:
  Service(RuleTable& rules, grpc::GenericStub& stub) : rules_(rules), stub_(stub) {}
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* context) override {
    return new ProxyCall(context, rules_, stub_);
  }

 private:
  RuleTable& rules_;
  grpc::GenericStub& stub_;
};

}  // namespace

class GrpcFaultProxy::Impl {
 public:
  Impl(std::shared_ptr<RuleTable> rules, GrpcFaultProxyOptions options)
      : rules_(std::move(rules)), options_(std::move(options)) {
    if (!rules_) throw std::invalid_argument("GrpcFaultProxy: rules must not be null");
    net::RequireLoopbackAddress(options_.upstream, "GrpcFaultProxy upstream");
    if (!net::IsLoopbackAddress(options_.listen, /*allow_port_zero=*/true)) {
      throw std::invalid_argument("GrpcFaultProxy listen: '" + options_.listen + "' is not a loopback address");
    }
    stub_ = std::make_unique<grpc::GenericStub>(
        grpc::CreateChannel(options_.upstream, grpc::InsecureChannelCredentials()));
    service_ = std::make_unique<Service>(*rules_, *stub_);
    grpc::ServerBuilder builder;
    builder.AddListeningPort(options_.listen, grpc::InsecureServerCredentials(), &port_);
    builder.RegisterCallbackGenericService(service_.get());
    server_ = builder.BuildAndStart();
    if (!server_ || port_ == 0) throw std::runtime_error("GrpcFaultProxy: cannot listen on " + options_.listen);
  }
  ~Impl() { Stop(); }
  int port() const { return port_; }
  void Stop() {
    if (stopped_.exchange(true)) return;
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_->Wait();
  }

 private:
  std::shared_ptr<RuleTable> rules_;
  GrpcFaultProxyOptions options_;
  std::unique_ptr<grpc::GenericStub> stub_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::atomic<bool> stopped_{false};
};

GrpcFaultProxy::GrpcFaultProxy(std::shared_ptr<RuleTable> rules, GrpcFaultProxyOptions options)
    : impl_(std::make_unique<Impl>(std::move(rules), std::move(options))) {}
GrpcFaultProxy::~GrpcFaultProxy() = default;
int GrpcFaultProxy::port() const { return impl_->port(); }
void GrpcFaultProxy::Stop() { impl_->Stop(); }

}  // namespace aftershock::request_proxy
