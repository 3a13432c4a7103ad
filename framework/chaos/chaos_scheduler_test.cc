#include "framework/chaos/chaos_scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <thread>

namespace aftershock::chaos {
namespace {

using std::chrono::milliseconds;

struct Counting : Fault {
  explicit Counting(std::string n) : n_(std::move(n)) {}
  std::string name() const override { return n_; }
  std::string detail() const override { return "d"; }
  void Apply() override {
    if (fail_apply) throw std::runtime_error("boom");
    ++applies;
    active = true;
  }
  void Revert() override {
    ++reverts;
    active = false;
  }
  std::string n_;
  std::atomic<int> applies{0}, reverts{0};
  std::atomic<bool> active{false};
  bool fail_apply = false;
};

TEST(ChaosSchedulerTest, AppliesAndRevertsOnTheRunClockAndRecordsTheTimeline) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  auto f = std::make_shared<Counting>("stall");
  {
    ChaosScheduler chaos(clock, timeline);
    chaos.Start({{.at = milliseconds(100), .duration = milliseconds(200), .fault = f}});
    std::this_thread::sleep_for(milliseconds(200));
    EXPECT_TRUE(f->active);
    chaos.Finish(std::chrono::seconds(5));
  }
  EXPECT_EQ(f->applies, 1);
  EXPECT_EQ(f->reverts, 1);
  auto events = timeline.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event, "apply");
  EXPECT_EQ(events[1].event, "revert");
  EXPECT_GE(events[0].seconds, 0.1);
  EXPECT_GE(events[1].seconds, 0.3);
  auto spans = timeline.Spans(10);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].begin_second, 0);
  EXPECT_EQ(spans[0].end_second, 0);
  std::ostringstream csv;
  EXPECT_EQ(timeline.WriteCsv(csv), 2u);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')), "unix_ms,second,event,fault,detail");
}

TEST(ChaosSchedulerTest, DestructionRevertsWhatIsStillApplied) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  auto f = std::make_shared<Counting>("partition");
  {
    ChaosScheduler chaos(clock, timeline);
    chaos.Start({{.at = milliseconds(0), .duration = std::chrono::minutes(5), .fault = f}});
    std::this_thread::sleep_for(milliseconds(100));
    EXPECT_TRUE(f->active);
  }  // e.g. the scenario threw
  EXPECT_FALSE(f->active);
  EXPECT_EQ(f->reverts, 1);
}

TEST(ChaosSchedulerTest, RefusesOverlappingDatabaseFaults) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  ChaosScheduler chaos(clock, timeline);
  auto a = std::make_shared<Counting>("primary-kill");
  auto b = std::make_shared<Counting>("db-partition");
  EXPECT_THROW(chaos.Start({{.at = milliseconds(0), .duration = milliseconds(500), .fault = a, .database = true},
                            {.at = milliseconds(400), .duration = milliseconds(500), .fault = b, .database = true}}),
               std::invalid_argument);
}

TEST(ChaosSchedulerTest, ApplyFailureIsReportedNotSwallowed) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  auto f = std::make_shared<Counting>("broken");
  f->fail_apply = true;
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = milliseconds(0), .duration = milliseconds(50), .fault = f}});
  chaos.Finish(std::chrono::seconds(5));
  ASSERT_EQ(chaos.errors().size(), 1u);
  EXPECT_EQ(chaos.errors()[0], "apply of fault 'broken' failed: boom");
}

}  // namespace
}  // namespace aftershock::chaos

namespace aftershock::chaos {
namespace {

TEST(ChaosSchedulerTest, RoundsAreGatedAndRepeatUntilTheirEnd) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  auto kill = std::make_shared<Counting>("primary-kill");
  std::atomic<int> gates{0};
  {
    ChaosScheduler chaos(clock, timeline);
    chaos.Start({{.at = std::chrono::milliseconds(50), .fault = kill, .database = true,
                  .repeat_pause = std::chrono::milliseconds(100), .repeat_until = std::chrono::milliseconds(480),
                  .gate = [&] { ++gates; }}});
    chaos.Finish(std::chrono::seconds(5));
    EXPECT_TRUE(chaos.errors().empty());
  }
  // Rounds start at ~50, 150, 250, 350, 450 ms; none at 550 (past 480).
  EXPECT_GE(kill->applies, 4);
  EXPECT_LE(kill->applies, 5);
  EXPECT_EQ(gates, kill->applies);
  EXPECT_EQ(kill->reverts, 0);  // instantaneous actions are not reverted
  EXPECT_EQ(static_cast<int>(timeline.events().size()), kill->applies.load());
  EXPECT_EQ(timeline.events()[0].event, "action");
  const auto spans = timeline.Spans(10);
  ASSERT_EQ(static_cast<int>(spans.size()), kill->applies.load());
  EXPECT_EQ(spans[0].begin_second, spans[0].end_second);  // an action spans its own second
}

TEST(ChaosSchedulerTest, AGateThatNeverOpensIsAnError) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  auto kill = std::make_shared<Counting>("primary-kill");
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = std::chrono::milliseconds(0), .fault = kill, .repeat_pause = std::chrono::milliseconds(10),
                .repeat_until = std::chrono::milliseconds(1000),
                .gate = [] { throw std::runtime_error("database not healthy after 60 s"); }}});
  chaos.Finish(std::chrono::seconds(5));
  ASSERT_EQ(chaos.errors().size(), 1u);
  EXPECT_EQ(chaos.errors()[0], "apply of fault 'primary-kill' failed: database not healthy after 60 s");
  EXPECT_EQ(kill->applies, 0);
}

TEST(ChaosSchedulerTest, RoundsMayNotHaveADuration) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  ChaosScheduler chaos(clock, timeline);
  EXPECT_THROW(chaos.Start({{.at = std::chrono::milliseconds(0), .duration = std::chrono::milliseconds(5),
                             .fault = std::make_shared<Counting>("x"), .repeat_pause = std::chrono::milliseconds(10),
                             .repeat_until = std::chrono::milliseconds(100)}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::chaos
