#include "framework/load/grpc_channel.h"

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace aftershock::load {
namespace {

TEST(GrpcChannelTest, LoopbackAddressesAreRecognised) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:50051"));
  EXPECT_TRUE(IsLoopbackAddress("127.8.9.10:1"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:80"));
  EXPECT_FALSE(IsLoopbackAddress("10.0.0.1:50051"));
  EXPECT_FALSE(IsLoopbackAddress("example.com:80"));
  EXPECT_FALSE(IsLoopbackAddress("127.0.0.1"));
}

TEST(GrpcChannelTest, RefusesNonLoopbackTargetsUnlessAllowed) {
  try {
    MakeRoundRobinChannel({"127.0.0.1:1", "192.168.1.5:50051"});
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'192.168.1.5:50051' is not a loopback address"), std::string::npos);
  }
  EXPECT_THROW(MakeRoundRobinChannel({}), std::invalid_argument);
  EXPECT_THROW(MakeRoundRobinChannel({"127.0.0.1"}), std::invalid_argument);
  EXPECT_NE(MakeRoundRobinChannel({"127.0.0.1:1", "127.0.0.1:2"}), nullptr);
}

TEST(GrpcChannelTest, ADnsTargetNeedsTheNonLoopbackAllowanceAndStandsAlone) {
  try {
    MakeRoundRobinChannel({"dns:///aftershock-pseudonym-headless.aftershock.svc.cluster.local:8081"});
    FAIL() << "a DNS target was accepted without the allowance";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("names its hosts by DNS, which is allowed only where non-loopback"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(MakeRoundRobinChannel({"dns:///a:1", "127.0.0.1:2"}, {.allow_non_loopback = true}), std::invalid_argument);
}

// Through the DNS resolver to a server on loopback: "localhost" resolves, the channel connects.
TEST(GrpcChannelTest, ADnsTargetResolvesAndConnects) {
  int port = 0;
  grpc::CallbackGenericService nothing;  // a server needs a service; connecting needs no call
  grpc::ServerBuilder builder;
  builder.RegisterCallbackGenericService(&nothing);
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ASSERT_GT(port, 0);
  const auto channel =
      MakeRoundRobinChannel({"dns:///localhost:" + std::to_string(port)}, {.allow_non_loopback = true});
  EXPECT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(20)));
  server->Shutdown();
}

}  // namespace
}  // namespace aftershock::load
