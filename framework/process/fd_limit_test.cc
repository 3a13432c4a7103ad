#include "framework/process/fd_limit.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

namespace aftershock::process {
namespace {

TEST(FdLimitTest, AFittingRequestRaisesTheSoftLimitToCoverIt) {
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  if (before.rlim_max != RLIM_INFINITY && before.rlim_max < 2048) GTEST_SKIP() << "hard limit below 2048";
  EXPECT_EQ(EnsureFileDescriptors(512), std::nullopt);
  rlimit after{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &after), 0);
  EXPECT_TRUE(after.rlim_cur == RLIM_INFINITY || after.rlim_cur >= 512 + kFileDescriptorHeadroom);
}

TEST(FdLimitTest, MoreThanTheHardLimitIsAnErrorNamingTheKnob) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_max == RLIM_INFINITY || limit.rlim_max > 1'000'000'000) GTEST_SKIP() << "no finite hard limit";
  const auto error = EnsureFileDescriptors(static_cast<int>(limit.rlim_max));
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("hard RLIMIT_NOFILE"), std::string::npos) << *error;
  EXPECT_NE(error->find("RESILIENCE_MAX_IN_FLIGHT"), std::string::npos) << *error;
}

}  // namespace
}  // namespace aftershock::process
