#include "framework/stress/recovery_clock.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>

namespace aftershock::stress {
namespace {

// One call completing every 10 ms from 0 to `until` seconds, with the latency and outcome `at` gives
// for its completion time.
struct Outcome {
  double latency_ms = 5;
  bool ok = true;
};
CallLog Calls(double until, const std::function<Outcome(double completed)>& at) {
  CallLog log;
  for (int i = 0; i * 0.01 < until; ++i) {
    const double completed = i * 0.01;
    const Outcome o = at(completed);
    CallRecord r;
    r.completed_ns = static_cast<std::int64_t>(completed * 1e9);
    r.intended_ns = r.completed_ns - static_cast<std::int64_t>(o.latency_ms * 1e6);
    r.ok = o.ok;
    r.code = o.ok ? 200 : 503;
    r.status = static_cast<std::int16_t>(r.code);
    log.records.push_back(r);
  }
  return log;
}

RecoveryOptions TestRecoveryOptions() {
  return {.drop_seconds = 10, .end_seconds = 30, .p99_target_ms = 25, .error_ratio_floor = 0, .sustain_seconds = 5};
}

TEST(RecoveryClockTest, StopsAtTheFirstSustainedHealthyWindowWithSubSecondResolution) {
  // Slow (100 ms) until 13.25 s, then 5 ms.
  const CallLog log = Calls(30, [](double t) { return Outcome{t < 13.25 ? 100.0 : 5.0}; });
  const RecoveryMeasurement m = MeasureRecovery(log, TestRecoveryOptions());
  ASSERT_TRUE(m.recovered) << m.last_unhealthy;
  EXPECT_NEAR(m.seconds, 3.3, 1e-9);  // the first 100 ms step whose 1 s window is clear of the slow calls
  EXPECT_NEAR(m.recovered_at, 13.3, 1e-9);
  EXPECT_NE(m.last_unhealthy.find("p99 100 ms > 25 ms"), std::string::npos) << m.last_unhealthy;
  EXPECT_TRUE(m.incomplete.empty());
}

TEST(RecoveryClockTest, ErrorsAboveTheFloorAndSilenceAreNotHealthy) {
  // An error every 0.5 s until 14.5 s; nothing completes from 18 to 19.5 s (a stall).
  CallLog log = Calls(30, [](double t) {
    const bool error = t < 14.9 && std::lround(t * 100) % 50 == 0;
    return Outcome{5, !error};
  });
  std::erase_if(log.records, [](const CallRecord& r) {
    return r.completed_ns >= 18'000'000'000 && r.completed_ns < 19'500'000'000;
  });
  const RecoveryMeasurement m = MeasureRecovery(log, TestRecoveryOptions());
  ASSERT_TRUE(m.recovered) << m.last_unhealthy;
  // Healthy from 14.6 s would hold for 5 s but for the stall: the windows 18.0..18.5 s saw nothing.
  EXPECT_NEAR(m.seconds, 8.6, 1e-9) << m.last_unhealthy;
  EXPECT_NE(m.last_unhealthy.find("window 18.5..19.5 s: only 0 calls completed"), std::string::npos) << m.last_unhealthy;
  RecoveryOptions tolerant = TestRecoveryOptions();
  tolerant.error_ratio_floor = 0.05;  // 1 error in 100 calls a second is within this floor
  const RecoveryMeasurement t = MeasureRecovery(log, tolerant);
  ASSERT_TRUE(t.recovered);
  EXPECT_NEAR(t.seconds, 0, 1e-9);
}

TEST(RecoveryClockTest, ATargetThatStaysDegradedNeverRecoversWithinTheRun) {
  const CallLog log = Calls(30, [](double t) { return Outcome{t < 10 ? 5.0 : 60.0}; });
  const RecoveryMeasurement m = MeasureRecovery(log, TestRecoveryOptions());
  EXPECT_FALSE(m.recovered);
  EXPECT_EQ(m.seconds, -1);
  EXPECT_EQ(m.evaluated_until, 30);
  EXPECT_NE(m.last_unhealthy.find("p99 60 ms"), std::string::npos) << m.last_unhealthy;
  // Healthy only for the last 3 s: not sustained for 5 s before the run ended.
  const CallLog late = Calls(30, [](double t) { return Outcome{t < 27 ? 60.0 : 5.0}; });
  const RecoveryMeasurement l = MeasureRecovery(late, TestRecoveryOptions());
  EXPECT_FALSE(l.recovered);
  EXPECT_NE(l.last_unhealthy.find("the run ended 20 s after the drop"), std::string::npos) << l.last_unhealthy;
}

TEST(RecoveryClockTest, SaysWhenTheRecorderDroppedCallsItNeeds) {
  CallLog log = Calls(30, [](double) { return Outcome{}; });
  log.dropped = 10;
  log.first_dropped_completed_ns = 25'000'000'000;
  EXPECT_FALSE(MeasureRecovery(log, TestRecoveryOptions()).incomplete.empty());
  log.first_dropped_completed_ns = 31'000'000'000;
  EXPECT_TRUE(MeasureRecovery(log, TestRecoveryOptions()).incomplete.empty());
}

TEST(RecoveryClockTest, BadOptionsAreErrorsNamingTheOption) {
  const CallLog log;
  auto message = [&](RecoveryOptions o) -> std::string {
    try {
      MeasureRecovery(log, o);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  RecoveryOptions o = TestRecoveryOptions();
  o.drop_seconds = -1;
  EXPECT_NE(message(o).find("drop_seconds"), std::string::npos);
  o = TestRecoveryOptions();
  o.window_seconds = 6;
  EXPECT_NE(message(o).find("sustain_seconds"), std::string::npos);
  o = TestRecoveryOptions();
  o.resolution_seconds = 0;
  EXPECT_NE(message(o).find("resolution_seconds"), std::string::npos);
  o = TestRecoveryOptions();
  o.end_seconds = 5;
  EXPECT_NE(message(o).find("end_seconds"), std::string::npos);
}

TEST(RecoveryClockTest, ErrorRatioOverAWindow) {
  const CallLog log = Calls(10, [](double t) { return Outcome{5, t >= 1}; });
  EXPECT_NEAR(*ErrorRatio(log, 0, 2), 0.5, 0.01);
  EXPECT_EQ(*ErrorRatio(log, 2, 10), 0);
  EXPECT_EQ(ErrorRatio(log, 20, 30), std::nullopt);
}

}  // namespace
}  // namespace aftershock::stress
