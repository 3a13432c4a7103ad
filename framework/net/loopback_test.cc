#include "framework/net/loopback.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace aftershock::net {
namespace {

TEST(LoopbackTest, TheWholeOf127Slash8AndIpv6LoopbackAndLocalhost) {
  for (const char* host : {"127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "[::1]", "localhost"}) {
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  }
}

TEST(LoopbackTest, EverythingElseIsNot) {
  for (const char* host : {"0.0.0.0", "10.0.0.1", "128.0.0.1", "126.255.255.255", "::", "::2", "fe80::1",
                           "127.0.0", "127.0.0.1.5", "1270.0.0.1", "127.", "localhost.example.com", "db",
                           "LOCALHOST ", ""}) {
    EXPECT_FALSE(IsLoopbackHost(host)) << "'" << host << "'";
  }
}

TEST(LoopbackTest, SplitsHostAndPort) {
  const auto v4 = SplitHostPort("127.0.0.1:8080");
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 8080);
  const auto v6 = SplitHostPort("[::1]:443");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 443);
  for (const char* bad : {"127.0.0.1", "127.0.0.1:", ":80", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:8x",
                          "::1:80", "[::1]80", "[::1]:", "[]:80"}) {
    EXPECT_FALSE(SplitHostPort(bad).has_value()) << bad;
  }
}

TEST(LoopbackTest, PortZeroOnlyWhereAllowed) {
  EXPECT_FALSE(IsLoopbackAddress("127.0.0.1:0"));
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:0", /*allow_port_zero=*/true));
  EXPECT_FALSE(IsLoopbackAddress("10.0.0.1:0", /*allow_port_zero=*/true));
}

TEST(LoopbackTest, AddressesNeedALoopbackHostAndAPort) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:1"));
  EXPECT_TRUE(IsLoopbackAddress("localhost:5432"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:50051"));
  EXPECT_FALSE(IsLoopbackAddress("127.0.0.1"));
  EXPECT_FALSE(IsLoopbackAddress("0.0.0.0:80"));
  EXPECT_FALSE(IsLoopbackAddress("127.example.com:80"));  // a prefix test would let this through
}

TEST(LoopbackTest, RequireNamesWhatAndWhy) {
  try {
    RequireLoopbackAddress("10.1.2.3:80", "gRPC channel");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "gRPC channel: '10.1.2.3:80' is not a loopback address (load and faults go to 127.0.0.0/8, [::1] or "
              "localhost unless a target is explicitly allowed)");
  }
  try {
    RequireLoopbackAddress("127.0.0.1", "--listen");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "--listen: '127.0.0.1' is not host:port");
  }
  EXPECT_NO_THROW(RequireLoopbackAddress("127.0.0.9:9", "x"));
}

}  // namespace
}  // namespace aftershock::net
