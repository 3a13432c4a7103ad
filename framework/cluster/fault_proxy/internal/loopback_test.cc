#include "framework/cluster/fault_proxy/internal/loopback.h"

#include <stdexcept>

#include <gtest/gtest.h>

namespace aftershock::cluster::internal {
namespace {

TEST(FaultProxyLoopbackHostTest, AcceptsThe127Slash8RangeAndLocalhost) {
  EXPECT_EQ(ParseLoopbackHost("127.0.0.1").to_string(), "127.0.0.1");
  EXPECT_EQ(ParseLoopbackHost("127.1.2.3").to_string(), "127.1.2.3");
  EXPECT_EQ(ParseLoopbackHost("127.255.255.254").to_string(), "127.255.255.254");
  EXPECT_EQ(ParseLoopbackHost("localhost").to_string(), "127.0.0.1");
}

TEST(FaultProxyLoopbackHostTest, RefusesEverythingElse) {
  EXPECT_THROW(ParseLoopbackHost("10.0.0.1"), std::invalid_argument);
  EXPECT_THROW(ParseLoopbackHost("0.0.0.0"), std::invalid_argument);
  EXPECT_THROW(ParseLoopbackHost("128.0.0.1"), std::invalid_argument);
  EXPECT_THROW(ParseLoopbackHost("126.255.255.255"), std::invalid_argument);
  EXPECT_THROW(ParseLoopbackHost("192.168.1.10"), std::invalid_argument);
  EXPECT_THROW(ParseLoopbackHost("::1"), std::invalid_argument);
  EXPECT_THROW(ParseLoopbackHost("example.com"), std::invalid_argument);
  EXPECT_THROW(ParseLoopbackHost(""), std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::cluster::internal
