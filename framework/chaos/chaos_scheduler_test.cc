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
