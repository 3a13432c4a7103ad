#include "framework/chaos/chaos_scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <string_view>
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
    if (!leave_residue) active = false;
  }
  // Confirms what `active` shows, as a real fault would from a probe.
  Confirmation ConfirmApplied(Clock::time_point deadline) override {
    ++confirms;
    return PollUntil(deadline, [this]() -> std::optional<std::string> {
      if (active) return std::string("active");
      return std::nullopt;
    }, "never active", std::chrono::milliseconds(5));
  }
  Confirmation ConfirmReverted(Clock::time_point deadline) override {
    return PollUntil(deadline, [this]() -> std::optional<std::string> {
      if (!active) return std::string("inactive");
      return std::nullopt;
    }, "still active", std::chrono::milliseconds(5));
  }
  std::string n_;
  std::atomic<int> confirms{0};
  bool leave_residue = false;
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
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].event, "apply");
  EXPECT_EQ(events[1].event, "confirmed");
  EXPECT_EQ(events[2].event, "revert");
  EXPECT_EQ(events[3].event, "reverted-clean");
  EXPECT_GE(events[0].seconds, 0.1);
  EXPECT_GE(events[1].seconds, events[0].seconds);
  EXPECT_GE(events[2].seconds, 0.3);
  auto spans = timeline.Spans(10);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].begin_second, 0);
  EXPECT_EQ(spans[0].end_second, 0);
  std::ostringstream csv;
  EXPECT_EQ(timeline.WriteCsv(csv), 4u);
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
  ASSERT_EQ(chaos.skipped().size(), 1u);
  EXPECT_EQ(chaos.skipped()[0].fault, "broken");
  EXPECT_EQ(chaos.skipped()[0].round, 1);
  EXPECT_EQ(chaos.skipped()[0].why, "not applied: boom");
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
  EXPECT_EQ(kill->confirms, kill->applies);  // every round confirms
  EXPECT_EQ(static_cast<int>(timeline.events().size()), 2 * kill->applies.load());
  EXPECT_EQ(timeline.events()[0].event, "action");
  EXPECT_EQ(timeline.events()[1].event, "confirmed");
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
  ASSERT_EQ(chaos.skipped().size(), 1u);
  EXPECT_EQ(chaos.skipped()[0].why, "not applied: database not healthy after 60 s");
}

// The apply is stamped when it starts and the confirmation when its effect was seen; "after N s" is
// their difference, also for an action whose Apply takes a while (it used to be stamped on return).
TEST(ChaosSchedulerTest, AnActionIsStampedWhenItStartsAndAfterIsTheDistanceToTheObservation) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  auto started = std::make_shared<std::atomic<Clock::rep>>(0);
  chaos::LambdaFault::Callables c;
  c.apply = [started] {
    started->store(Clock::now().time_since_epoch().count());
    std::this_thread::sleep_for(milliseconds(300));  // finding the primary, then the kill
  };
  c.detail_after_apply = [] { return std::string("killed pg-a"); };
  // The failover is seen exactly 1.2 s after the apply started (the system's own log would say so).
  c.confirm_applied = [started](Clock::time_point) {
    const Clock::time_point seen = Clock::time_point(Clock::duration(started->load())) + milliseconds(1200);
    std::this_thread::sleep_until(seen + milliseconds(100));  // answered a little after it was seen
    return Confirmation::Confirmed("leader pg-b", seen);
  };
  auto kill = std::make_shared<LambdaFault>("primary-kill", "", std::move(c));
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = milliseconds(50), .fault = kill}});
  std::this_thread::sleep_for(milliseconds(1700));
  chaos.Finish(std::chrono::seconds(5));
  ASSERT_EQ(chaos.confirmations().size(), 1u);
  EXPECT_NEAR(chaos.confirmations()[0].after_seconds, 1.2, 0.02);
  const std::vector<ChaosEvent> events = timeline.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event, "action");
  EXPECT_EQ(events[0].detail, "killed pg-a");
  const double started_seconds =
      std::chrono::duration<double>(Clock::time_point(Clock::duration(started->load())) - clock.start()).count();
  EXPECT_NEAR(events[0].seconds, started_seconds, 0.01);
  EXPECT_EQ(events[1].event, "confirmed");
  EXPECT_NEAR(events[1].seconds - events[0].seconds, 1.2, 0.02);
  EXPECT_EQ(chaos.confirmations()[0].detail, "leader pg-b after 1.2 s");
}

// A repeat window with no room for a round used to end the rounds without a word.
TEST(ChaosSchedulerTest, AnEmptyRepeatWindowIsASkippedRoundNamingWhy) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  auto kill = std::make_shared<Counting>("primary-kill");
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = std::chrono::milliseconds(200), .fault = kill, .repeat_pause = std::chrono::milliseconds(10),
                .repeat_until = std::chrono::milliseconds(40)}});
  chaos.Finish(std::chrono::seconds(5));
  EXPECT_TRUE(chaos.errors().empty());
  EXPECT_EQ(kill->applies, 0);
  ASSERT_EQ(chaos.skipped().size(), 1u);
  EXPECT_EQ(chaos.skipped()[0].fault, "primary-kill");
  EXPECT_EQ(chaos.skipped()[0].round, 1);
  EXPECT_EQ(chaos.skipped()[0].why, "its repeat window is empty: the first round was due at 0.2 s, the window ends at 0.0 s");
}

TEST(ChaosSchedulerTest, AnAbortNamesEveryApplyItNeverReached) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  auto a = std::make_shared<Counting>("a");
  auto b = std::make_shared<Counting>("b");
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = std::chrono::milliseconds(0), .duration = std::chrono::milliseconds(20), .fault = a},
               {.at = std::chrono::seconds(30), .duration = std::chrono::milliseconds(20), .fault = b}});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  chaos.Abort();
  EXPECT_EQ(b->applies, 0);
  ASSERT_EQ(chaos.skipped().size(), 1u);
  EXPECT_EQ(chaos.skipped()[0].fault, "b");
  EXPECT_EQ(chaos.skipped()[0].why, "the scheduler stopped before it (the run was stopped early: an abort or an interrupt)");
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

namespace aftershock::chaos {
namespace {

struct Silent : Fault {  // a fault type that does not implement confirmation
  std::string name() const override { return "silent"; }
  void Apply() override {}
  void Revert() override {}
};

const ConfirmationRecord* Find(const std::vector<ConfirmationRecord>& records, bool revert, int round = 1) {
  for (const auto& r : records) {
    if (r.revert == revert && r.round == round) return &r;
  }
  return nullptr;
}
// The pointer would outlive a temporary vector (AddressSanitizer: heap-use-after-free).
const ConfirmationRecord* Find(std::vector<ConfirmationRecord>&& records, bool revert, int round = 1) = delete;
// The record of `fault`'s apply (revert): records come in the order the confirmations ended, and
// confirmations of different faults run beside each other, so only a fault's own records are ordered.
const ConfirmationRecord* FindOf(const std::vector<ConfirmationRecord>& records, std::string_view fault, bool revert) {
  for (const auto& r : records) {
    if (r.fault == fault && r.revert == revert) return &r;
  }
  return nullptr;
}
const ConfirmationRecord* FindOf(std::vector<ConfirmationRecord>&& records, std::string_view fault, bool revert) = delete;

TEST(ChaosSchedulerConfirmationTest, RecordsEachRoundsConfirmationOnTheTimelineWithItsOwnTime) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  auto f = std::make_shared<Counting>("stall");
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = milliseconds(0), .duration = milliseconds(100), .fault = f},
               {.at = milliseconds(200), .duration = milliseconds(100), .fault = f}});
  chaos.Finish(std::chrono::seconds(5));
  const auto records = chaos.confirmations();
  ASSERT_EQ(records.size(), 4u);
  for (int round : {1, 2}) {
    const ConfirmationRecord* applied = Find(records, false, round);
    const ConfirmationRecord* reverted = Find(records, true, round);
    ASSERT_NE(applied, nullptr) << round;
    ASSERT_NE(reverted, nullptr) << round;
    EXPECT_EQ(applied->status, Confirmation::Status::kConfirmed);
    EXPECT_EQ(reverted->status, Confirmation::Status::kConfirmed);
    EXPECT_EQ(applied->detail.rfind("active after ", 0), 0u) << applied->detail;
    EXPECT_EQ(reverted->detail.rfind("inactive after ", 0), 0u) << reverted->detail;
  }
  EXPECT_GE(Find(records, false, 2)->seconds, 0.2);
  std::vector<std::string> events;
  for (const auto& e : timeline.events()) events.push_back(e.event);
  EXPECT_EQ(events, (std::vector<std::string>{"apply", "confirmed", "revert", "reverted-clean", "apply", "confirmed",
                                              "revert", "reverted-clean"}));
}

TEST(ChaosSchedulerConfirmationTest, AnApplyThatDidNothingIsUnconfirmedWithinTheTimeout) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  struct Missed : Counting {
    Missed() : Counting("kill") {}
    void Apply() override { ++applies; }  // the kill that missed: nothing became active
  };
  auto f = std::make_shared<Missed>();
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = milliseconds(0), .fault = f, .confirm_timeout = milliseconds(200)}});
  chaos.Finish(std::chrono::seconds(5));
  const auto records = chaos.confirmations();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].status, Confirmation::Status::kNotConfirmed);
  EXPECT_EQ(records[0].detail, "never active");
  EXPECT_GE(records[0].after_seconds, 0.2);  // it looked for the whole timeout
  ASSERT_EQ(timeline.events().size(), 2u);
  EXPECT_EQ(timeline.events()[1].event, "unconfirmed");
  EXPECT_EQ(timeline.events()[1].detail, "never active");
}

// The confirm timeout counts from the apply's own instant (the one after_seconds counts from), not
// from a clock read before it. Under UBSan on a busy machine a preemption between the two reads made
// the test above red 3 times in 30 (after_seconds 0.19995); a slow record_after_apply(), read between
// them, makes the gap deterministic: before the fix the confirmation looked for 0.15 s of its 0.2 s.
TEST(ChaosSchedulerConfirmationTest, TheConfirmTimeoutCountsFromTheApplyItself) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  struct SlowToAsk : Counting {
    SlowToAsk() : Counting("kill") {}
    bool record_after_apply() const override {
      std::this_thread::sleep_for(milliseconds(50));
      return false;
    }
    void Apply() override { ++applies; }  // nothing becomes active
  };
  auto f = std::make_shared<SlowToAsk>();
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = milliseconds(0), .fault = f, .confirm_timeout = milliseconds(200)}});
  chaos.Finish(std::chrono::seconds(5));
  const auto records = chaos.confirmations();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].status, Confirmation::Status::kNotConfirmed);
  EXPECT_GE(records[0].after_seconds, 0.2);
}

TEST(ChaosSchedulerConfirmationTest, ResidueAfterRevertIsRecorded) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  auto f = std::make_shared<Counting>("partition");
  f->leave_residue = true;
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = milliseconds(0), .duration = milliseconds(50), .fault = f, .confirm_timeout = milliseconds(100)}});
  chaos.Finish(std::chrono::seconds(5));
  const std::vector<ConfirmationRecord> records = chaos.confirmations();  // Find points into it
  const ConfirmationRecord* reverted = Find(records, true);
  ASSERT_NE(reverted, nullptr);
  EXPECT_EQ(reverted->status, Confirmation::Status::kNotConfirmed);
  EXPECT_EQ(reverted->detail, "still active");
  EXPECT_EQ(timeline.events().back().event, "residue");
}

TEST(ChaosSchedulerConfirmationTest, AConfirmationNeverHoldsUpTheFaultsOwnRevert) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  struct Missed : Counting {
    Missed() : Counting("stall") {}
    void Apply() override { ++applies; }
  };
  auto f = std::make_shared<Missed>();
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = milliseconds(0), .duration = milliseconds(200), .fault = f,
                .confirm_timeout = std::chrono::seconds(30)}});
  chaos.Finish(std::chrono::seconds(10));
  const auto events = timeline.events();
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events[2].event, "revert");
  EXPECT_LT(events[2].seconds, 5.0);  // bounded by the revert time (0.2 s), not the 30 s timeout
}

TEST(ChaosSchedulerConfirmationTest, ASlowConfirmationNeverDelaysAnotherFaultsStep) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  struct SlowFailover : Counting {  // the new leader shows 400 ms after the kill
    SlowFailover() : Counting("primary-kill") {}
    void Apply() override {
      ++applies;
      killed_at = Clock::now();
    }
    Confirmation ConfirmApplied(Clock::time_point deadline) override {
      return PollUntil(deadline, [this]() -> std::optional<std::string> {
        if (Clock::now() - killed_at < milliseconds(400)) return std::nullopt;
        return std::string("leader pg-b");
      }, "no new leader", milliseconds(5));
    }
    Clock::time_point killed_at;
  };
  auto kill = std::make_shared<SlowFailover>();
  auto lag = std::make_shared<Counting>("replication-lag");
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = milliseconds(0), .duration = milliseconds(300), .fault = lag},
               {.at = milliseconds(100), .fault = kill, .confirm_timeout = std::chrono::seconds(10)},
               {.at = milliseconds(200), .duration = milliseconds(50), .fault = std::make_shared<Counting>("other")}});
  chaos.Finish(std::chrono::seconds(10));
  const auto events = timeline.events();
  double lag_revert = -1, kill_confirmed = -1, other_apply = -1;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i > 0) {
      EXPECT_LE(events[i - 1].seconds, events[i].seconds) << "timeline out of order at row " << i;
    }
    if (events[i].fault == "replication-lag" && events[i].event == "revert") lag_revert = events[i].seconds;
    if (events[i].fault == "primary-kill" && events[i].event == "confirmed") kill_confirmed = events[i].seconds;
    if (events[i].fault == "other" && events[i].event == "apply") other_apply = events[i].seconds;
  }
  EXPECT_GE(kill_confirmed, 0.5);  // 100 ms + 400 ms
  EXPECT_GE(other_apply, 0.2);
  EXPECT_LT(other_apply, kill_confirmed);  // applied on time, while the kill's confirmation waited
  EXPECT_LT(lag_revert, kill_confirmed);
  const auto records = chaos.confirmations();
  ASSERT_EQ(records.size(), 5u);
  for (const auto& r : records) EXPECT_EQ(r.status, Confirmation::Status::kConfirmed) << r.fault << ": " << r.detail;
}

TEST(ChaosSchedulerConfirmationTest, AStopCutsAConfirmationShort) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  struct Missed : Counting {
    Missed() : Counting("primary-kill") {}
    void Apply() override { ++applies; }
  };
  auto f = std::make_shared<Missed>();
  const auto started = Clock::now();
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = milliseconds(0), .fault = f, .confirm_timeout = std::chrono::seconds(60)}});
  std::this_thread::sleep_for(milliseconds(100));
  chaos.Abort();  // Ctrl-C while it waits for a failover
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(30));
  const auto records = chaos.confirmations();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].status, Confirmation::Status::kNotConfirmed);
  EXPECT_EQ(records[0].detail, "never active (the run was stopped while waiting)");
}

TEST(ChaosSchedulerConfirmationTest, AFaultWithoutConfirmationIsUnconfirmedNeverSilentlyConfirmed) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = milliseconds(0), .duration = milliseconds(20), .fault = std::make_shared<Silent>()}});
  chaos.Finish(std::chrono::seconds(5));
  const auto records = chaos.confirmations();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].status, Confirmation::Status::kNotConfirmed);
  EXPECT_NE(records[0].detail.find("does not confirm its effect"), std::string::npos) << records[0].detail;
  EXPECT_EQ(records[1].status, Confirmation::Status::kNotConfirmed);
}

TEST(ChaosSchedulerConfirmationTest, LambdaFaultConfirmsOptsOutWithAReasonAndFillsInItsDetail) {
  RunClock clock = RunClock::StartNow();
  ChaosTimeline timeline(clock);
  std::atomic<bool> on{false};
  auto confirmed = std::make_shared<LambdaFault>(
      "flag", "", LambdaFault::Callables{
                      .apply = [&] { on = true; },
                      .revert = [&] { on = false; },
                      .confirm_applied = [&](Clock::time_point) {
                        return on ? Confirmation::Confirmed("flag on") : Confirmation::NotConfirmed("flag off");
                      },
                      .confirm_reverted = [&](Clock::time_point) {
                        return !on ? Confirmation::Confirmed("flag off") : Confirmation::NotConfirmed("flag on");
                      },
                      .detail_after_apply = [] { return std::string("hit worker 3"); }});
  auto opted_out = std::make_shared<LambdaFault>(
      "external", "d", LambdaFault::Callables{.apply = [] {}, .not_confirmable = "the effect is outside this process"});
  auto silent = std::make_shared<LambdaFault>("silent", "d", [] {}, [] {});
  ChaosScheduler chaos(clock, timeline);
  chaos.Start({{.at = milliseconds(0), .duration = milliseconds(20), .fault = confirmed},
               {.at = milliseconds(50), .fault = opted_out},
               {.at = milliseconds(60), .fault = silent}});
  chaos.Finish(std::chrono::seconds(5));
  const std::vector<ConfirmationRecord> records = chaos.confirmations();  // FindOf points into it
  ASSERT_EQ(records.size(), 4u);
  const ConfirmationRecord* flag_on = FindOf(records, "flag", false);
  const ConfirmationRecord* flag_off = FindOf(records, "flag", true);
  const ConfirmationRecord* external = FindOf(records, "external", false);
  const ConfirmationRecord* unconfirmed = FindOf(records, "silent", false);
  ASSERT_NE(flag_on, nullptr);
  ASSERT_NE(flag_off, nullptr);
  ASSERT_NE(external, nullptr);
  ASSERT_NE(unconfirmed, nullptr);
  EXPECT_EQ(flag_on->status, Confirmation::Status::kConfirmed);
  EXPECT_EQ(flag_off->status, Confirmation::Status::kConfirmed);
  EXPECT_EQ(external->status, Confirmation::Status::kNotConfirmable);
  EXPECT_EQ(external->detail, "the effect is outside this process");
  EXPECT_EQ(unconfirmed->status, Confirmation::Status::kNotConfirmed);
  const auto events = timeline.events();
  EXPECT_EQ(events[0].event, "apply");
  EXPECT_EQ(events[0].detail, "hit worker 3");  // recorded after the apply, with what it hit
  EXPECT_EQ(confirmed->detail(), "hit worker 3");
}

}  // namespace
}  // namespace aftershock::chaos
