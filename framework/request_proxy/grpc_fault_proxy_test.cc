#include "framework/request_proxy/grpc_fault_proxy.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <gtest/gtest.h>

#include "framework/config/test_time_scale.h"
#include "framework/process/scratch_dir.h"
#include "framework/request_proxy/internal/delay_pairs.h"
#include "framework/request_proxy/request_proxy_process.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <memory>
#include <thread>
#include <vector>

namespace aftershock::request_proxy {
namespace {

using namespace std::chrono_literals;

std::string Bytes(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  buffer.Dump(&slices);
  std::string out;
  for (const auto& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

grpc::ByteBuffer Buffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

// The upstream: answers every unary call with its request bytes followed by "-echo" (payloads
// are opaque to the proxy, so no proto is needed).
class EchoService : public grpc::CallbackGenericService {
 public:
  std::atomic<int> calls{0};
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext*) override {
    ++calls;
    class Echo : public grpc::ServerGenericBidiReactor {
     public:
      Echo() { StartRead(&request_); }
      void OnReadDone(bool ok) override {
        if (!ok) return Finish(grpc::Status(grpc::StatusCode::INTERNAL, "no request"));
        response_ = Buffer(Bytes(request_) + "-echo");
        StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
      }
      void OnDone() override { delete this; }

     private:
      grpc::ByteBuffer request_, response_;
    };
    return new Echo;
  }
};

class GrpcFaultProxyTest : public ::testing::Test {
 protected:
  GrpcFaultProxyTest() : rules_(std::make_shared<RuleTable>(RuleTable::SeededRng(13))) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &upstream_port_);
    builder.RegisterCallbackGenericService(&echo_);
    upstream_ = builder.BuildAndStart();
    proxy_ = std::make_unique<GrpcFaultProxy>(
        rules_, GrpcFaultProxyOptions{.upstream = "127.0.0.1:" + std::to_string(upstream_port_)});
    stub_ = std::make_unique<grpc::GenericStub>(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(proxy_->port()), grpc::InsecureChannelCredentials()));
  }
  ~GrpcFaultProxyTest() override {
    proxy_->Stop();
    upstream_->Shutdown(std::chrono::system_clock::now() + 1s);
  }

  struct Result {
    grpc::Status status;
    std::string body;
    std::string fault;  // x-aftershock-fault trailer
  };
  Result Call(const std::string& method, const std::string& body) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    grpc::ByteBuffer request = Buffer(body), response;
    std::promise<grpc::Status> done;
    stub_->UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                     [&](grpc::Status s) { done.set_value(std::move(s)); });
    Result result{.status = done.get_future().get(), .body = "", .fault = ""};
    if (result.status.ok()) result.body = Bytes(response);
    const auto& trailers = context.GetServerTrailingMetadata();
    if (auto it = trailers.find("x-aftershock-fault"); it != trailers.end()) {
      result.fault = std::string(it->second.data(), it->second.size());
    }
    return result;
  }

  double MedianMs(int n) {
    std::vector<double> ms;
    for (int i = 0; i < n; ++i) {
      const auto start = std::chrono::steady_clock::now();
      EXPECT_TRUE(Call("/pkg.Svc/Get", "x").status.ok());
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }

  // `n` pairs of calls, one to /pkg.Svc/Get (which the test's rule matches), then one to
  // /pkg.Other/Get (which no rule matches), on the same channel: the rule's delay is what the first
  // adds to the second (internal/delay_pairs.h; against zero it was 5.2 ms off under AddressSanitizer
  // on a busy machine).
  internal::DelayMedians MeasureDelay(int n) {
    auto timed = [this](const std::string& method) {
      const auto start = std::chrono::steady_clock::now();
      EXPECT_TRUE(Call(method, "x").status.ok());
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    };
    return internal::MedianDelayOverPairs(n, [&] { return timed("/pkg.Svc/Get"); },
                                          [&] { return timed("/pkg.Other/Get"); });
  }

  std::shared_ptr<RuleTable> rules_;
  EchoService echo_;
  int upstream_port_ = 0;
  std::unique_ptr<grpc::Server> upstream_;
  std::unique_ptr<GrpcFaultProxy> proxy_;
  std::unique_ptr<grpc::GenericStub> stub_;
};

TEST_F(GrpcFaultProxyTest, ForwardsBytesUntouchedWithoutRules) {
  const Result r = Call("/pkg.Svc/Get", "hello");
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  EXPECT_EQ(r.body, "hello-echo");
  EXPECT_EQ(r.fault, "");
  // The figure docs/request-proxy.md quotes: median unary latency direct vs through the proxy.
  const double proxied = MedianMs(201);
  stub_ = std::make_unique<grpc::GenericStub>(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(upstream_port_), grpc::InsecureChannelCredentials()));
  const double direct = MedianMs(201);
  std::printf("grpc median latency: direct %.3f ms, through the proxy %.3f ms\n", direct, proxied);
}

TEST_F(GrpcFaultProxyTest, StatusInjectionShareWithinTwoPointsOver10000Calls) {
  rules_->Set({.id = "get-unavailable", .protocol = Protocol::kGrpc, .route = "/pkg.Svc/Get", .share = 0.3,
               .action = StatusAction{14}});
  int injected = 0;
  for (int i = 0; i < 10000; ++i) {
    const Result r = Call("/pkg.Svc/Get", "q");
    if (!r.status.ok()) {
      ASSERT_EQ(r.status.error_code(), grpc::StatusCode::UNAVAILABLE);
      ASSERT_EQ(r.fault, "get-unavailable");
      ++injected;
    } else {
      ASSERT_EQ(r.body, "q-echo");
    }
  }
  std::printf("grpc status share over 10000: %.4f (asked 0.3)\n", injected / 10000.0);
  EXPECT_NEAR(injected / 10000.0, 0.3, 0.02);
  EXPECT_EQ(echo_.calls.load(), 10000 - injected);
  EXPECT_TRUE(Call("/pkg.Svc/Other", "q").status.ok());  // another method is not touched
}

// Each delay the rule adds to the proxy's pass-through (median over pairs) is within 5 ms of the
// one asked, and no delayed call answers sooner than the delay.
TEST_F(GrpcFaultProxyTest, DelaysWithin5Ms) {
  rules_->Set({.id = "slow", .protocol = Protocol::kGrpc, .route = "/pkg.Svc/", .share = 1.0,
               .action = DelayRequestAction{50ms}});
  const internal::DelayMedians request = MeasureDelay(11);
  rules_->Set({.id = "slow", .protocol = Protocol::kGrpc, .route = "/pkg.Svc/", .share = 1.0,
               .action = DelayResponseAction{50ms}});
  const internal::DelayMedians response = MeasureDelay(11);
  std::printf("grpc delay 50 ms: delay_request median %.2f ms (no rule %.2f ms, added %.2f ms), "
              "delay_response median %.2f ms (no rule %.2f ms, added %.2f ms)\n",
              request.delayed_ms, request.base_ms, request.added_ms, response.delayed_ms, response.base_ms,
              response.added_ms);
  EXPECT_LE(std::abs(request.added_ms - 50.0), 5.0 * config::TestTimeScale());  // scaled for a slower (sanitizer) build
  EXPECT_LE(std::abs(response.added_ms - 50.0), 5.0 * config::TestTimeScale());  // scaled for a slower (sanitizer) build
  EXPECT_GE(request.delayed_ms, 50.0);
  EXPECT_GE(response.delayed_ms, 50.0);
}

TEST_F(GrpcFaultProxyTest, TruncateCutsTheResponseMessage) {
  rules_->Set({.id = "cut", .protocol = Protocol::kGrpc, .route = "/", .share = 1.0, .action = TruncateBodyAction{3}});
  const Result r = Call("/pkg.Svc/Get", "hello");
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.body, "hel");
  EXPECT_EQ(r.fault, "cut");
}

TEST_F(GrpcFaultProxyTest, StopEndsAPendingDelayInsteadOfWaitingItOut) {
  rules_->Set({.id = "stall", .protocol = Protocol::kGrpc, .route = "/", .share = 1.0,
               .action = DelayRequestAction{60s}});
  grpc::ClientContext context;
  grpc::ByteBuffer request = Buffer("x"), response;
  std::promise<grpc::Status> done;
  stub_->UnaryCall(&context, "/pkg.Svc/Get", grpc::StubOptions(), &request, &response,
                   [&](grpc::Status s) { done.set_value(std::move(s)); });
  for (int i = 0; i < 200 && rules_->List().at(0).fired == 0; ++i) std::this_thread::sleep_for(10ms);
  const auto start = std::chrono::steady_clock::now();
  proxy_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);  // far below the 60 s delay
  auto status = done.get_future();
  ASSERT_EQ(status.wait_for(10s), std::future_status::ready);
  EXPECT_FALSE(status.get().ok());
  EXPECT_EQ(echo_.calls.load(), 0);
}

TEST_F(GrpcFaultProxyTest, TheProgramProxiesGrpcAndClearsOnSigterm) {
  process::ScratchDir scratch = process::ScratchDir::Create("request-proxy-grpc-test");
  RequestProxyProcess proxy = RequestProxyProcess::Start({.program = AFTERSHOCK_REQUEST_PROXY_PATH,
                                                          .grpc_upstream = "127.0.0.1:" + std::to_string(upstream_port_),
                                                          .scratch_dir = scratch.path()});
  ASSERT_GT(proxy.grpc_port(), 0);
  EXPECT_EQ(proxy.http_port(), 0);
  stub_ = std::make_unique<grpc::GenericStub>(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(proxy.grpc_port()), grpc::InsecureChannelCredentials()));
  EXPECT_EQ(Call("/pkg.Svc/Get", "a").body, "a-echo");
  proxy.client().SetRule({.id = "g", .protocol = Protocol::kGrpc, .route = "/pkg.Svc/Get", .share = 1.0,
                          .action = StatusAction{8}});
  EXPECT_EQ(Call("/pkg.Svc/Get", "a").status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(proxy.Stop(), 0);
}

TEST(GrpcFaultProxyStandaloneTest, RefusesNonLoopbackAddresses) {
  auto rules = std::make_shared<RuleTable>();
  EXPECT_THROW(GrpcFaultProxy(rules, {.upstream = "10.0.0.1:50051"}), std::invalid_argument);
  EXPECT_THROW(GrpcFaultProxy(rules, {.listen = "0.0.0.0:0", .upstream = "127.0.0.1:50051"}), std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::request_proxy
