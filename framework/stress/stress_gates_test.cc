#include <algorithm>
#include "framework/stress/stress_gates.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "framework/stress/internal/test_units.h"

namespace aftershock::stress {
namespace {

using std::chrono::milliseconds;

using internal::kMs;
using internal::kS;

// A call intended at `at_ms`, answered after `latency_ms` (its request written `sent_after_ms` after the
// intended time).
CallRecord Call(std::int64_t at_ms, double latency_ms, int status, double sent_after_ms = 0) {
  CallRecord r;
  r.intended_ns = at_ms * kMs;
  r.completed_ns = r.intended_ns + static_cast<std::int64_t>(latency_ms * 1e6);
  r.sent_ns = r.intended_ns + static_cast<std::int64_t>(sent_after_ms * 1e6);
  r.status = static_cast<std::int16_t>(status);
  r.code = status;
  r.ok = status >= 200 && status < 300;
  r.shed = status == 429 || status == 503;
  r.headers_ok = r.body_ok = r.shed;
  return r;
}

// 10..20 s: 100 ok/s and 200 clean sheds/s (429 answered in 0.3 ms after a 10 ms wait in the client).
CallLog Overload() {
  CallLog log;
  log.contract.required_body = "ERR_GATEWAY_OVERLOAD_SHEDDING";
  for (std::int64_t ms = 10'000; ms < 20'000; ms += 10) log.records.push_back(Call(ms, 4, 200));
  for (std::int64_t ms = 10'000; ms < 20'000; ms += 5) log.records.push_back(Call(ms, 10.3, 429, 10));
  return log;
}

const TimeWindow kPlateau{10, 20};
SheddingContractOptions Contract() { return {.plateau = kPlateau, .capacity_rate = 100}; }

TEST(SheddingContractGateTest, GreenWhenGoodputHoldsAndEveryShedIsClean) {
  const gates::GateResult g = SheddingContractGate(Overload(), Contract());
  EXPECT_TRUE(g.passed) << g.message;
  EXPECT_FALSE(g.not_applicable);
  EXPECT_EQ(g.name, "shedding-contract");
  EXPECT_NE(g.message.find("goodput 100/s"), std::string::npos) << g.message;
  EXPECT_NE(g.message.find("2000 shed, every one 429/503 with Retry-After and 'ERR_GATEWAY_OVERLOAD_SHEDDING'"),
            std::string::npos)
      << g.message;
}

TEST(SheddingContractGateTest, RedOnAShedResponseWithoutRetryAfterOrDiagnostic) {
  CallLog log = Overload();
  log.records[1500].headers_ok = false;
  log.records[1600].body_ok = false;
  const gates::GateResult g = SheddingContractGate(log, Contract());
  EXPECT_FALSE(g.passed);
  EXPECT_NE(g.message.find("1 shed responses without the required header(s) (first at 12.500 s HTTP 429"),
            std::string::npos)
      << g.message;
  EXPECT_NE(g.message.find("1 shed responses without the diagnostic body"), std::string::npos) << g.message;
}

TEST(SheddingContractGateTest, RedWhenTheTargetQueuesInsteadOfShedding) {
  // No shedding: the excess waits until the deadline; the generator's ceiling fills.
  CallLog log;
  for (std::int64_t ms = 10'000; ms < 20'000; ms += 10) log.records.push_back(Call(ms, 4, 200));
  for (std::int64_t ms = 10'000; ms < 20'000; ms += 20) {
    CallRecord r = Call(ms, 35'000, 0);
    r.code = kCodeDeadlineExceeded;
    log.records.push_back(r);
  }
  for (std::int64_t ms = 10'000; ms < 20'000; ms += 100) log.records.push_back(Call(ms, 3, 500));
  metrics::LoadTimeline timeline;
  timeline.At(15).shed = 40;
  SheddingContractOptions o = Contract();
  o.timeline = &timeline;
  const gates::GateResult g = SheddingContractGate(log, o);
  EXPECT_FALSE(g.passed);
  EXPECT_NE(g.message.find("100 non-shed failure statuses (first at 10.000 s HTTP 500"), std::string::npos) << g.message;
  EXPECT_NE(g.message.find("500 calls without a response (first at 10.000 s DEADLINE_EXCEEDED after 35000 ms"),
            std::string::npos)
      << g.message;
  EXPECT_NE(g.message.find("40 arrivals refused at the generator's in-flight ceiling"), std::string::npos) << g.message;
  EXPECT_NE(g.message.find("nothing was shed"), std::string::npos) << g.message;
}

TEST(SheddingContractGateTest, RedWhenGoodputFallsBelowTheFractionOfCapacity) {
  SheddingContractOptions o = Contract();
  o.capacity_rate = 150;  // 100/s is 67%
  const gates::GateResult g = SheddingContractGate(Overload(), o);
  EXPECT_FALSE(g.passed);
  EXPECT_NE(g.message.find("goodput 100/s is 66.667% of the stated capacity 150/s (< 90%)"), std::string::npos) << g.message;
}

TEST(SheddingContractGateTest, NotApplicableWithoutCallsAndRedWhenTheRecorderDroppedSome) {
  EXPECT_TRUE(SheddingContractGate(Overload(), {.plateau = {30, 40}, .capacity_rate = 100}).not_applicable);
  CallLog log = Overload();
  log.dropped = 5;
  log.first_dropped_intended_ns = 19 * kS;
  const gates::GateResult g = SheddingContractGate(log, Contract());
  EXPECT_FALSE(g.passed);
  EXPECT_NE(g.message.find("cannot judge"), std::string::npos) << g.message;
  EXPECT_THROW(SheddingContractGate(log, {.plateau = kPlateau}), std::invalid_argument);  // no capacity stated
}

TEST(ShedLatencyGateTest, MeasuredFromTheSendGreenWhenFastRedWhenSlow) {
  const gates::GateResult fast = ShedLatencyGate(Overload(), {.window = kPlateau});
  EXPECT_TRUE(fast.passed) << fast.message;  // 10.3 ms from the intended time, 0.3 ms from the send
  EXPECT_NE(fast.message.find("p99 of 2000 shed responses in 10..20 s, from the send: 0.3 ms"), std::string::npos)
      << fast.message;
  CallLog slow = Overload();
  for (std::size_t i = 1000; i < slow.records.size(); i += 50) slow.records[i].completed_ns += 5 * kMs;  // 2% slow
  const gates::GateResult g = ShedLatencyGate(slow, {.window = kPlateau});
  EXPECT_FALSE(g.passed);
  EXPECT_NE(g.message.find("5.3 ms (budget 1.5 ms"), std::string::npos) << g.message;
  EXPECT_TRUE(ShedLatencyGate(slow, {.window = kPlateau, .budget_ms = 6}).passed);
  CallLog none;
  none.records.push_back(Call(1000, 3, 200));
  EXPECT_TRUE(ShedLatencyGate(none, {}).not_applicable);
}

TEST(NoHangGateTest, RedOnACallPastTheBoundAndWhenTheDeadlineHidesHangs) {
  CallLog log = Overload();
  const NoHangOptions o{.call_deadline = milliseconds(35'000)};
  const gates::GateResult green = NoHangGate(log, o);
  EXPECT_TRUE(green.passed) << green.message;
  log.records.push_back(Call(12'000, 31'000, 200));
  log.max_latency_ns = 31 * kS;
  const gates::GateResult red = NoHangGate(log, o);
  EXPECT_FALSE(red.passed);
  EXPECT_NE(red.message.find("1 calls took longer than 30 s (first at 12.000 s HTTP 200 after 31000 ms)"), std::string::npos)
      << red.message;
  const gates::GateResult blind = NoHangGate(Overload(), {.call_deadline = milliseconds(5000)});
  EXPECT_FALSE(blind.passed);
  EXPECT_NE(blind.message.find("cannot be observed: the call deadline (5 s)"), std::string::npos) << blind.message;
  EXPECT_TRUE(NoHangGate(CallLog{}, o).not_applicable);
}

TEST(TargetAliveGateTest, RedOnACrashKillOrRestartGreenWhenItRanThrough) {
  EXPECT_TRUE(TargetAliveGate(TargetLiveness{}).not_applicable);
  const gates::GateResult green = TargetAliveGate(TargetLiveness{.observed = true, .target = "gateway", .healthy_at_end = true});
  EXPECT_TRUE(green.passed) << green.message;
  EXPECT_FALSE(green.not_applicable);
  const gates::GateResult crashed = TargetAliveGate(
      TargetLiveness{.observed = true, .target = "gateway", .running_at_end = false, .signal = 11, .detail = "SIGSEGV in Admit"});
  EXPECT_FALSE(crashed.passed);
  EXPECT_EQ(crashed.message, "gateway killed by signal 11 [SIGSEGV in Admit]");
  EXPECT_FALSE(TargetAliveGate(TargetLiveness{.observed = true, .restarts = 1}).passed);
  EXPECT_FALSE(TargetAliveGate(TargetLiveness{.observed = true, .exit_code = 1}).passed);
  EXPECT_FALSE(TargetAliveGate(TargetLiveness{.observed = true, .healthy_at_end = false}).passed);
  const gates::GateResult thrown =
      TargetAliveGate(std::function<TargetLiveness()>([]() -> TargetLiveness { throw std::runtime_error("no pid"); }));
  EXPECT_FALSE(thrown.passed);
  EXPECT_NE(thrown.message.find("no pid"), std::string::npos);
}

// Calls every 10 ms to 40 s; 80 ms slow from the drop at 20 s until `slow_until`.
CallLog AfterDrop(double slow_until) {
  CallLog log;
  for (std::int64_t ms = 0; ms < 40'000; ms += 10) {
    const bool slow = ms >= 20'000 && ms < slow_until * 1000;
    log.records.push_back(Call(ms, slow ? 80 : 5, 200));
  }
  return log;
}

TEST(RecoveryVelocityGateTest, GreenWithinTheLimitRedPastItOrNever) {
  const RecoveryVelocityOptions o{.clock = {.drop_seconds = 20, .end_seconds = 40}, .limit_seconds = 10};
  const gates::GateResult fast = RecoveryVelocityGate(AfterDrop(23.4), o);
  EXPECT_TRUE(fast.passed) << fast.message;
  EXPECT_NE(fast.message.find("recovered 3.5 s after the drop at 20 s"), std::string::npos) << fast.message;
  const gates::GateResult slow = RecoveryVelocityGate(AfterDrop(32), o);
  EXPECT_FALSE(slow.passed);
  EXPECT_NE(slow.message.find("recovered 12.1 s after the drop"), std::string::npos) << slow.message;
  const gates::GateResult never = RecoveryVelocityGate(AfterDrop(41), o);
  EXPECT_FALSE(never.passed);
  EXPECT_NE(never.message.find("never recovered within the run"), std::string::npos) << never.message;
  EXPECT_EQ(never.figures.front(), (std::pair<std::string, double>{"recovery_seconds", -1}));
  EXPECT_TRUE(RecoveryVelocityGate(AfterDrop(0), {.clock = {.drop_seconds = 50}}).not_applicable);
}

TEST(DownstreamIsolationGateTest, RedWhenThePoolPassesEightyPercent) {
  const std::vector<MetricSample> size = {{1 * kS, 10}, {2 * kS, 10}, {3 * kS, 10}};
  const gates::GateResult green = DownstreamIsolationGate({{1 * kS, 2}, {2 * kS, 8}, {3 * kS, 5}}, size, {.pool = "db pool"});
  EXPECT_TRUE(green.passed) << green.message;
  EXPECT_EQ(green.message, "db pool in use reached 80% of its size at 2.000 s (limit 80%; 0 of 3 samples over, the whole run)");
  const gates::GateResult red = DownstreamIsolationGate({{1 * kS, 2}, {2 * kS, 9}, {3 * kS, 10}}, size, {});
  EXPECT_FALSE(red.passed);
  EXPECT_NE(red.message.find("reached 100% of its size at 3.000 s (limit 80%; 2 of 3 samples over"), std::string::npos)
      << red.message;
  // Outside the window the saturation is not judged; without samples nothing is.
  EXPECT_TRUE(DownstreamIsolationGate({{1 * kS, 2}, {3 * kS, 10}}, size, {.window = {0, 2}}).passed);
  // Without samples nothing was seen: red, never N/A.
  const gates::GateResult unseen = DownstreamIsolationGate({}, size, {});
  EXPECT_FALSE(unseen.passed);
  EXPECT_FALSE(unseen.not_applicable);
  EXPECT_NE(unseen.message.find("nothing was measured"), std::string::npos) << unseen.message;
}

TEST(DownstreamIsolationGateTest, ScrapesThatFailedInTheWindowAreRedNotJudgedOnTheSurvivors) {
  const std::vector<MetricSample> size = {{1 * kS, 10}, {2 * kS, 10}};
  const std::vector<MetricSample> in_use = {{1 * kS, 2}, {2 * kS, 3}};  // healthy, where seen
  DownstreamIsolationOptions o{.pool = "db pool", .coverage = PollCoverage{.polls = 40, .failed = 38, .parse_errors = 0,
                                                                          .last_error = "connect: Connection refused"}};
  const gates::GateResult red = DownstreamIsolationGate(in_use, size, o);
  EXPECT_FALSE(red.passed);
  EXPECT_EQ(red.message,
            "38 of 40 polls of db pool's in_use and size gave no sample (95 % > 5 % allowed); last error: connect: "
            "Connection refused: not seen, so not judged green; on the samples that came: db pool in use reached 30% "
            "of its size at 2.000 s (limit 80%; 0 of 2 samples over, the whole run)");
  EXPECT_NE(std::find(red.figures.begin(), red.figures.end(), std::pair<std::string, double>{"scrape_failed_polls", 38}),
            red.figures.end());
  // Within the declared share it is judged on its samples; no poll at all is red.
  o.coverage = PollCoverage{.polls = 40, .failed = 2, .parse_errors = 1, .last_error = {}};
  EXPECT_TRUE(DownstreamIsolationGate(in_use, size, o).passed);
  o.coverage = PollCoverage{};
  EXPECT_FALSE(DownstreamIsolationGate(in_use, size, o).passed);
}

TEST(StageWindowTest, CoversEveryPartOfAStageAndSkipsItsStart) {
  const load::RateProfile profile = load::RateProfile::FromStages(
      {{.name = "nominal", .rate_from = 10, .duration_seconds = 5},
       {.name = "plateau", .kind = load::StageKind::kSteps, .rate_from = 30, .rate_to = 30, .duration_seconds = 10, .steps = 2},
       {.name = "recovery", .rate_from = 10, .duration_seconds = 5}});
  const TimeWindow w = StageWindow(profile, "plateau", 1);
  EXPECT_EQ(w.from_seconds, 6);
  EXPECT_EQ(w.to_seconds, 15);
  EXPECT_THROW(StageWindow(profile, "missing"), std::invalid_argument);
  EXPECT_THROW(StageWindow(profile, "recovery", 6), std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::stress
