#include "framework/cluster/internal/free_ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace aftershock::cluster::internal {
namespace {

TEST(FreePortsTest, APortHeldByAListenerIsNotBindable) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = 0;
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const int port = ntohs(address.sin_port);
  EXPECT_FALSE(PortBindable("127.0.0.1", port));
  ::close(fd);
  EXPECT_TRUE(PortBindable("127.0.0.1", port));
}

TEST(FreePortsTest, RejectsOutOfRangePortsAndBadHosts) {
  EXPECT_FALSE(PortBindable("127.0.0.1", 0));
  EXPECT_FALSE(PortBindable("127.0.0.1", 70000));
  EXPECT_FALSE(PortBindable("not-an-ip", 30000));
}

TEST(FreePortsTest, FoundBlockLiesInRangeAndIsBindable) {
  const std::optional<int> base = FindFreePortBlock("127.0.0.1", 8, 30000, 40000, 32);
  ASSERT_TRUE(base.has_value());
  EXPECT_GE(*base, 30000);
  EXPECT_LE(*base + 8, 40000);
  for (int port = *base; port < *base + 8; ++port) EXPECT_TRUE(PortBindable("127.0.0.1", port));
  EXPECT_FALSE(FindFreePortBlock("127.0.0.1", 8, 30000, 30004, 4).has_value());
}

TEST(FreePortsTest, BlocksStayClearOfTheEphemeralRangeWhereTheRangeAllows) {
  for (int i = 0; i < 50; ++i) {
    const std::optional<int> base = FindFreePortBlock("127.0.0.1", 3, 20000, 60000, 64, {22000, 59990});
    ASSERT_TRUE(base.has_value());
    EXPECT_TRUE(*base + 3 <= 22000 || *base > 59990) << *base;  // 20000-21997, 59991-59997
    EXPECT_LE(*base + 3, 60000);
  }
  // Nothing clear of it: the whole range is searched rather than nothing found.
  const std::optional<int> inside = FindFreePortBlock("127.0.0.1", 3, 40000, 41000, 64, {32768, 60999});
  ASSERT_TRUE(inside.has_value());
  EXPECT_GE(*inside, 40000);
  EXPECT_LE(*inside + 3, 41000);
}

TEST(FreePortsTest, TheEphemeralRangeIsReadFromTheKernelOrLinuxsDefault) {
  const std::pair<int, int> range = EphemeralPortRange();
  EXPECT_GT(range.first, 0);
  EXPECT_LE(range.first, range.second);
  EXPECT_EQ(EphemeralPortRange("/nonexistent/ip_local_port_range"), (std::pair<int, int>{32768, 60999}));
}

}  // namespace
}  // namespace aftershock::cluster::internal
