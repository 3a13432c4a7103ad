#include "framework/gtest/scenario_output.h"

#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>

#include "framework/gtest/internal/test_process.h"
#include "gtest/gtest.h"

namespace aftershock::gtest_integration {
namespace {

using internal::ReadFile;
using internal::TempDir;

ScenarioOutput::CsvWriter FixedCsv(std::string csv, std::size_t rows, int* calls = nullptr) {
  return [csv = std::move(csv), rows, calls](std::ostream& os) {
    if (calls != nullptr) ++*calls;
    os << csv;
    return rows;
  };
}

TEST(ScenarioOutput, EmitPrintsExactMarkersAndWritesTheArtifact) {
  TempDir tmp;
  ScenarioOutput output((tmp.path() / "artifacts").string());
  output.Begin("pr", "primary-kill");
  output.AddTimeline("load-timeline.csv", FixedCsv("unix_ms,second,ok\n1000,0,5\n2000,1,7\n", 2));
  output.AddTimeline("chaos-timeline.csv", FixedCsv("unix_ms,second,event\n1500,0,kill", 1));  // no final \n
  std::ostringstream out;
  output.Emit(out);
  EXPECT_EQ(out.str(),
            "##aftershock BEGIN load-timeline.csv set=pr scenario=primary-kill\n"
            "unix_ms,second,ok\n1000,0,5\n2000,1,7\n"
            "##aftershock END load-timeline.csv rows=2\n"
            "##aftershock BEGIN chaos-timeline.csv set=pr scenario=primary-kill\n"
            "unix_ms,second,event\n1500,0,kill\n"
            "##aftershock END chaos-timeline.csv rows=1\n");
  const std::filesystem::path dir = tmp.path() / "artifacts" / "pr" / "primary-kill";
  EXPECT_EQ(output.ArtifactsDirFor(), dir.string());
  EXPECT_EQ(ReadFile(dir / "load-timeline.csv"), "unix_ms,second,ok\n1000,0,5\n2000,1,7\n");
  EXPECT_EQ(ReadFile(dir / "chaos-timeline.csv"), "unix_ms,second,event\n1500,0,kill\n");
}

TEST(ScenarioOutput, EmitIsIdempotentAndCallsTheWriterOnce) {
  TempDir tmp;
  ScenarioOutput output(tmp.path().string());
  output.Begin("pr", "s1");
  int calls = 0;
  output.AddTimeline("load-timeline.csv", FixedCsv("a\n1\n", 1, &calls));
  std::ostringstream first;
  output.Emit(first);
  std::ostringstream second;
  output.Emit(second);
  std::ostringstream at_end;
  output.End(at_end);
  EXPECT_EQ(first.str(),
            "##aftershock BEGIN load-timeline.csv set=pr scenario=s1\na\n1\n##aftershock END load-timeline.csv rows=1\n");
  EXPECT_EQ(second.str(), "");
  EXPECT_EQ(at_end.str(), "");
  EXPECT_EQ(calls, 1);
}

TEST(ScenarioOutput, TimelineAddedAfterEmitGoesOutWithTheNextEmit) {
  TempDir tmp;
  ScenarioOutput output(tmp.path().string());
  output.Begin("pr", "s1");
  output.AddTimeline("load-timeline.csv", FixedCsv("a\n", 0));
  std::ostringstream first;
  output.Emit(first);
  output.AddTimeline("chaos-timeline.csv", FixedCsv("b\n", 0));
  std::ostringstream second;
  output.End(second);
  EXPECT_EQ(second.str(),
            "##aftershock BEGIN chaos-timeline.csv set=pr scenario=s1\nb\n##aftershock END chaos-timeline.csv rows=0\n");
}

TEST(ScenarioOutput, EndEmitsWhatWasNotEmittedThenForgetsTheScenario) {
  TempDir tmp;
  ScenarioOutput output(tmp.path().string());
  output.Begin("weekly", "s2");
  EXPECT_TRUE(output.in_scenario());
  output.AddTimeline("load-timeline.csv", FixedCsv("x\n", 0));
  std::ostringstream out;
  output.End(out);
  EXPECT_EQ(out.str(),
            "##aftershock BEGIN load-timeline.csv set=weekly scenario=s2\nx\n##aftershock END load-timeline.csv rows=0\n");
  EXPECT_FALSE(output.in_scenario());
  std::ostringstream again;
  output.End(again);
  output.Emit(again);
  EXPECT_EQ(again.str(), "");
  EXPECT_THROW(output.AddTimeline("load-timeline.csv", FixedCsv("x\n", 0)), std::logic_error);
}

TEST(ScenarioOutput, BeginEndsAnOpenScenarioFirst) {
  TempDir tmp;
  ScenarioOutput output(tmp.path().string());
  output.Begin("pr", "first");
  output.AddTimeline("load-timeline.csv", FixedCsv("x\n", 0));
  // Begin() emits to std::cout; the artifact shows the first scenario got out.
  output.Begin("pr", "second");
  EXPECT_EQ(ReadFile(tmp.path() / "pr" / "first" / "load-timeline.csv"), "x\n");
  std::ostringstream out;
  output.End(out);
  EXPECT_EQ(out.str(), "");
}

TEST(ScenarioOutput, EmptySetMeansAdHoc) {
  TempDir tmp;
  ScenarioOutput output(tmp.path().string());
  output.Begin("", "dev");
  EXPECT_EQ(output.ArtifactsDirFor(), (tmp.path() / "adhoc" / "dev").string());
  output.AddTimeline("load-timeline.csv", FixedCsv("x\n", 0));
  std::ostringstream out;
  output.End(out);
  EXPECT_EQ(out.str().substr(0, out.str().find('\n')), "##aftershock BEGIN load-timeline.csv set=adhoc scenario=dev");
}

TEST(ScenarioOutput, RejectsNamesThatWouldBreakMarkersOrPaths) {
  ScenarioOutput output("artifacts");
  EXPECT_THROW(output.Begin("pr", "two words"), std::invalid_argument);
  EXPECT_THROW(output.Begin("pr", "../up"), std::invalid_argument);
  EXPECT_THROW(output.Begin("p/r", "s"), std::invalid_argument);
  EXPECT_THROW(output.Begin("pr", ""), std::invalid_argument);
  EXPECT_FALSE(output.in_scenario());
  output.Begin("pr", "ok");
  EXPECT_THROW(output.AddTimeline("sub/load.csv", FixedCsv("x\n", 0)), std::invalid_argument);
  EXPECT_THROW(output.AddTimeline("load.csv", ScenarioOutput::CsvWriter()), std::invalid_argument);
  output.End();  // nothing registered: prints nothing, writes nothing
}

TEST(ScenarioOutput, AThrowingWriterDoesNotStopTheOthers) {
  TempDir tmp;
  ScenarioOutput output(tmp.path().string());
  output.Begin("pr", "s");
  output.AddTimeline("broken.csv", [](std::ostream&) -> std::size_t { throw std::runtime_error("boom"); });
  output.AddTimeline("load-timeline.csv", FixedCsv("x\n", 0));
  std::ostringstream out;
  output.End(out);
  EXPECT_EQ(out.str(),
            "##aftershock BEGIN load-timeline.csv set=pr scenario=s\nx\n##aftershock END load-timeline.csv rows=0\n");
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "pr" / "s" / "broken.csv"));
}

TEST(ScenarioOutput, CurrentScenarioOutputIsTheInstalledOne) {
  ScenarioOutput a("a");
  ScenarioOutput b("b");
  const ScopedCurrentScenarioOutput install_a(a);
  EXPECT_EQ(&CurrentScenarioOutput(), &a);
  {
    const ScopedCurrentScenarioOutput install_b(b);
    EXPECT_EQ(&CurrentScenarioOutput(), &b);
  }
  EXPECT_EQ(&CurrentScenarioOutput(), &a);
}

TEST(ScenarioOutputDeathTest, CurrentScenarioOutputWithoutInstallationAborts) {
  EXPECT_DEATH(CurrentScenarioOutput(), "no ScenarioOutput is installed; link the suite binary with "
                                        "aftershock_gtest_main");
}

TEST(TimelineListener, OnTestEndEndsTheCurrentScenario) {
  TempDir tmp;
  ScenarioOutput output(tmp.path().string());
  const ScopedCurrentScenarioOutput install(output);
  output.Begin("pr", "listened");
  output.AddTimeline("load-timeline.csv", FixedCsv("x\n", 0));
  TimelineListener listener;
  listener.OnTestEnd(*testing::UnitTest::GetInstance()->current_test_info());
  EXPECT_FALSE(output.in_scenario());
  EXPECT_EQ(ReadFile(tmp.path() / "pr" / "listened" / "load-timeline.csv"), "x\n");
}

}  // namespace
}  // namespace aftershock::gtest_integration
