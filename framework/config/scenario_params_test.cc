#include "framework/config/scenario_params.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/config/config_error.h"

namespace aftershock::config {
namespace {

using ::testing::HasSubstr;

ScenarioParams Sample() {
  return ScenarioParams("manifests/sets/pr.yaml", "stall-burst", 20,
                        {{"stall_at_seconds", {"4", 22}},
                         {"stall_seconds", {"500ms", 23}},
                         {"mode", {"soft", 24}},
                         {"count", {"3", 25}}});
}

template <typename F>
std::string ErrorThrownBy(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(ScenarioParamsTest, ReadsTypedValues) {
  const ScenarioParams params = Sample();
  EXPECT_EQ(params.GetDouble("stall_at_seconds"), 4.0);
  EXPECT_EQ(params.GetDuration("stall_seconds"), 0.5);
  EXPECT_EQ(params.GetString("mode"), "soft");
  EXPECT_EQ(params.GetInteger("count"), 3);
  EXPECT_EQ(params.FindDouble("absent"), std::nullopt);
  EXPECT_EQ(params.FindDuration("stall_at_seconds"), 4.0);
  EXPECT_EQ(params.SourceOf("stall_seconds"), "manifests/sets/pr.yaml:23");
  EXPECT_EQ(params.SourceOf("absent"), "manifests/sets/pr.yaml:20");
  EXPECT_EQ(params.Keys(), (std::vector<std::string>{"count", "mode", "stall_at_seconds", "stall_seconds"}));
}

TEST(ScenarioParamsTest, MissingKeyNamesFileLineAndKey) {
  const ScenarioParams params = Sample();
  EXPECT_EQ(ErrorThrownBy([&] { params.GetDouble("stall_at"); }),
            "manifests/sets/pr.yaml:20: scenario 'stall-burst' has no params key 'stall_at' (params: "
            "count, mode, stall_at_seconds, stall_seconds)");
  EXPECT_THAT(ErrorThrownBy([] { ScenarioParams().GetString("x"); }), HasSubstr("has no params key 'x' (params: none)"));
}

TEST(ScenarioParamsTest, MalformedValueNamesItsOwnLine) {
  const ScenarioParams params = Sample();
  EXPECT_EQ(ErrorThrownBy([&] { params.GetDouble("mode"); }),
            "manifests/sets/pr.yaml:24: key 'mode': 'soft' is not a number (params of scenario 'stall-burst')");
  EXPECT_EQ(ErrorThrownBy([&] { params.FindDouble("mode"); }),
            "manifests/sets/pr.yaml:24: key 'mode': 'soft' is not a number (params of scenario 'stall-burst')");
  EXPECT_THAT(ErrorThrownBy([&] { params.GetDuration("mode"); }),
              HasSubstr("pr.yaml:24: key 'mode': 'soft' is not a duration (expected a number of seconds"));
  EXPECT_THAT(ErrorThrownBy([&] { params.GetInteger("stall_seconds"); }),
              HasSubstr("pr.yaml:23: key 'stall_seconds': '500ms' is not an integer"));
}

TEST(ScenarioParamsTest, UnreadTracksReadsThroughConstAccessAndCopies) {
  const ScenarioParams params = Sample();
  EXPECT_EQ(params.Unread(), (std::vector<std::string>{"count", "mode", "stall_at_seconds", "stall_seconds"}));
  params.GetDouble("stall_at_seconds");
  params.FindString("mode");
  EXPECT_FALSE(params.Has("nope"));
  EXPECT_TRUE(params.Has("count"));  // Has is not a read
  const ScenarioParams copy = params;
  copy.GetDuration("stall_seconds");
  EXPECT_EQ(params.Unread(), (std::vector<std::string>{"count"}));
  EXPECT_EQ(copy.Unread(), (std::vector<std::string>{"count"}));
}

TEST(ScenarioParamsTest, FailedReadStillCountsAsRead) {
  const ScenarioParams params = Sample();
  ErrorThrownBy([&] { params.GetDouble("mode"); });
  EXPECT_EQ(params.Unread(), (std::vector<std::string>{"count", "stall_at_seconds", "stall_seconds"}));
}

}  // namespace
}  // namespace aftershock::config
