#include "framework/load/internal/pileup_release.h"

#include <gtest/gtest.h>

namespace aftershock::load::internal {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const Clock::time_point kStart{};

TEST(PileupReleaseTest, ADrainedPileUpReleasesOnce) {
  PileupRelease release(256, seconds(1));
  EXPECT_FALSE(release.Observe(5, kStart));
  EXPECT_FALSE(release.Observe(500, kStart + milliseconds(100)));  // piling up
  EXPECT_FALSE(release.Observe(200, kStart + milliseconds(200)));  // draining
  EXPECT_TRUE(release.Observe(40, kStart + milliseconds(300)));    // within an eighth of the rise
  EXPECT_FALSE(release.Observe(5, kStart + seconds(5)));           // the same pile-up, not again
}

TEST(PileupReleaseTest, ARiseSmallerThanThePileUpNeverReleases) {
  PileupRelease release(256, seconds(1));
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(release.Observe(i % 2 == 0 ? 0 : 255, kStart + seconds(i))) << i;  // a rise of 255
  }
}

TEST(PileupReleaseTest, ARampToASteadyLevelNeverReleases) {
  PileupRelease release(256, seconds(1));
  for (int i = 0; i <= 2000; i += 50) EXPECT_FALSE(release.Observe(i, kStart + milliseconds(i))) << i;
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(release.Observe(i % 2 == 0 ? 1900 : 2100, kStart + seconds(3 + i))) << i;  // steady
  }
}

TEST(PileupReleaseTest, APileUpAboveASteadyLevelCountsFromItsLow) {
  PileupRelease release(256, seconds(1));
  EXPECT_FALSE(release.Observe(1000, kStart));             // the ramp to 1000 is no pile-up...
  EXPECT_FALSE(release.Observe(980, kStart + seconds(1)));  // ...the low since is 0, not 980
  PileupRelease steady(256, seconds(1));
  EXPECT_FALSE(steady.Observe(0, kStart));
  EXPECT_FALSE(steady.Observe(1000, kStart + seconds(1)));
  EXPECT_TRUE(steady.Observe(100, kStart + seconds(2)));  // a stage down from 1000 to 100 in flight
  EXPECT_FALSE(steady.Observe(1100, kStart + seconds(3)));
  EXPECT_FALSE(steady.Observe(300, kStart + seconds(4)));  // 200 above the low of 100: not yet
  EXPECT_TRUE(steady.Observe(200, kStart + seconds(5)));   // 100 above it: within an eighth of 1000
}

TEST(PileupReleaseTest, AtMostOneReleaseAnInterval) {
  PileupRelease release(256, seconds(1));
  EXPECT_FALSE(release.Observe(300, kStart));
  EXPECT_TRUE(release.Observe(0, kStart + milliseconds(100)));
  EXPECT_FALSE(release.Observe(300, kStart + milliseconds(200)));
  EXPECT_FALSE(release.Observe(0, kStart + milliseconds(300)));  // drained, but too soon
  EXPECT_TRUE(release.Observe(0, kStart + milliseconds(1100)));  // still drained, now it may
}

TEST(PileupReleaseTest, ZeroMeansNever) {
  PileupRelease release(0, seconds(1));
  EXPECT_FALSE(release.Observe(100000, kStart));
  EXPECT_FALSE(release.Observe(0, kStart + seconds(10)));
}

}  // namespace
}  // namespace aftershock::load::internal
