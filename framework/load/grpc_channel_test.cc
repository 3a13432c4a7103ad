#include "framework/load/grpc_channel.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace aftershock::load
