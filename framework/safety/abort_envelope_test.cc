// AbortEnvelope with injected evaluators (no Prometheus): it reads every condition on its own
// thread, keeps the first breach, turns Breached() on, keeps reading a slow condition apart, turns an
// exception into a failed reading, and stops its threads on destruction.
#include "framework/safety/abort_envelope.h"

#include <atomic>
#include <stdexcept>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::safety {
namespace {

using ::testing::HasSubstr;
using std::chrono::milliseconds;

// Polls `done` every 10 ms for at most `limit` (a bounded wait for the envelope's threads).
template <typename F>
bool WaitFor(F done, milliseconds limit = milliseconds(5000)) {
  const auto until = Clock::now() + limit;
  while (Clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return done();
}

StopCondition Scripted(std::string name, std::function<Reading()> read, milliseconds hold = milliseconds(0),
                       bool breach_on_failure = true) {
  return SignalCondition({.name = std::move(name), .comparator = Comparator::kAbove, .threshold = 0.5,
                          .hold = hold, .breach_on_failure = breach_on_failure},
                         "a scripted value", std::move(read));
}

TEST(AbortEnvelope, KeepsTheFirstBreachAndTurnsBreachedOn) {
  std::atomic<bool> trip{false};
  AbortEnvelope envelope({Scripted("quiet", [] { return Reading::Of(0); }),
                          Scripted("tripwire", [&] { return Reading::Of(trip ? 1.0 : 0.0); })},
                         {.interval = milliseconds(20)});
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_FALSE(envelope.Breached());
  EXPECT_FALSE(envelope.FirstBreach());
  const auto tripped_at = Clock::now();
  trip = true;
  ASSERT_TRUE(WaitFor([&] { return envelope.Breached(); }));
  const std::optional<scenario::AbortRequest> first = envelope.FirstBreach();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->condition, "tripwire");
  EXPECT_EQ(first->reason, "tripwire: a scripted value = 1 > 0.5");
  EXPECT_GE(first->at, tripped_at);
  EXPECT_LE(first->at, Clock::now());
  // It stays the first, whatever follows.
  std::this_thread::sleep_for(milliseconds(60));
  EXPECT_EQ(envelope.FirstBreach()->at, first->at);
  EXPECT_EQ(envelope.first_breach()->value, 1.0);
}

TEST(AbortEnvelope, TheEarlierOfTwoBreachesWins) {
  AbortEnvelope envelope({Scripted("late", [] { return Reading::Of(1); }, milliseconds(400)),
                          Scripted("early", [] { return Reading::Of(1); })},
                         {.interval = milliseconds(20)});
  ASSERT_TRUE(WaitFor([&] { return envelope.Breached(); }));
  std::this_thread::sleep_for(milliseconds(600));
  EXPECT_EQ(envelope.FirstBreach()->condition, "early");
}

TEST(AbortEnvelope, ASlowConditionDoesNotDelayAnother) {
  std::atomic<bool> release{false};
  AbortEnvelope envelope({Scripted("slow",
                                   [&] {
                                     for (int i = 0; i < 300 && !release; ++i) std::this_thread::sleep_for(milliseconds(10));
                                     return Reading::Of(0);
                                   }),
                          Scripted("fast", [] { return Reading::Of(1); })},
                         {.interval = milliseconds(20)});
  const bool breached = WaitFor([&] { return envelope.Breached(); }, milliseconds(2000));
  release = true;
  ASSERT_TRUE(breached);
  EXPECT_EQ(envelope.FirstBreach()->condition, "fast");
}

TEST(AbortEnvelope, AThrowingReadingIsAFailedOneAndAFailingConditionIsANote) {
  AbortEnvelope envelope({Scripted("thrower", []() -> Reading { throw std::runtime_error("boom"); },
                                   milliseconds(0), /*breach_on_failure=*/false)},
                         {.interval = milliseconds(20)});
  ASSERT_TRUE(WaitFor([&] { return envelope.statuses().at(0).failures >= 3; }));
  EXPECT_FALSE(envelope.Breached());
  const std::vector<std::string> notes = envelope.Notes();
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "1 stop condition read every 20 ms");
  EXPECT_THAT(notes[1], HasSubstr("stop condition 'thrower' could not be read "));
  EXPECT_THAT(notes[1], HasSubstr("(last: the reading threw: boom)"));
}

TEST(AbortEnvelope, ABlindConditionBreachesByDefault) {
  AbortEnvelope envelope({Scripted("blind", [] { return Reading::Failed("no series"); }, milliseconds(50))},
                         {.interval = milliseconds(20)});
  ASSERT_TRUE(WaitFor([&] { return envelope.Breached(); }));
  EXPECT_THAT(envelope.FirstBreach()->reason, HasSubstr("blind: cannot see a scripted value for"));
  EXPECT_THAT(envelope.FirstBreach()->reason, HasSubstr("(last error: no series)"));
}

TEST(AbortEnvelope, ReadsEveryIntervalAndStopsOnDestruction) {
  std::atomic<int> reads{0};
  {
    AbortEnvelope envelope({Scripted("count", [&] { ++reads; return Reading::Of(0); })}, {.interval = milliseconds(50)});
    std::this_thread::sleep_for(milliseconds(275));
  }
  const int seen = reads.load();
  EXPECT_GE(seen, 2);   // the first at once, then every 50 ms (a loaded machine may lose some)
  EXPECT_LE(seen, 7);
  std::this_thread::sleep_for(milliseconds(120));
  EXPECT_EQ(reads.load(), seen);  // no thread left reading
}

TEST(AbortEnvelope, BadSetupsAreRefused) {
  EXPECT_THROW(AbortEnvelope({}, {.interval = milliseconds(1)}), std::invalid_argument);
  EXPECT_THROW(AbortEnvelope({Scripted("a", [] { return Reading::Of(0); }), Scripted("a", [] { return Reading::Of(0); })}),
               std::invalid_argument);
  StopCondition no_reader = Scripted("x", {});
  EXPECT_THROW(AbortEnvelope({no_reader}), std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::safety
