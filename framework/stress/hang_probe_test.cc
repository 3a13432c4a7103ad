// HangProbe and no-hang with probes: a hang caught while the load's own deadline stays far below the
// hang bound, a healthy target green, and no probe at all red.
#include "framework/stress/hang_probe.h"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "framework/load/http_client.h"
#include "framework/load/http_test_server.h"
#include "framework/stress/stress_gates.h"
#include "gtest/gtest.h"

namespace aftershock::stress {
namespace hang_probe_test {

using load::HttpRequest;
using load::HttpTestServer;
using load::TestReply;
using std::chrono::milliseconds;

HangProbe::ProbeCall FetchFrom(const std::string& address) {
  return [address](milliseconds deadline) { load::HttpFetch(address, {.target = "/pay"}, deadline); };
}

CallLog OneFastCall() {
  CallLog log;
  log.records.push_back(CallRecord{});
  return log;
}

TEST(HangProbeTest, AHangIsCaughtWhileTheLoadKeepsADeadlineFarBelowTheBound) {
  std::atomic<bool> hang{false};
  HttpTestServer server([&](const HttpRequest&) {
    return TestReply{.delay = hang.load() ? milliseconds(700) : milliseconds(0)};
  });
  HangProbe probe(FetchFrom(server.address()),
                  {.hang_bound = milliseconds(300), .margin = milliseconds(300), .period = milliseconds(20),
                   .max_outstanding = 2},
                  RunClock::StartNow());
  std::this_thread::sleep_for(milliseconds(100));
  hang = true;  // the target now holds every request for 0.7 s: past the 0.3 s bound
  std::this_thread::sleep_for(milliseconds(300));
  probe.Stop();
  const HangProbeResult r = probe.result();
  EXPECT_GE(r.probes, 3u);
  EXPECT_GE(r.hung, 1u);
  EXPECT_FALSE(r.hung_at_seconds.empty());
  // The load's deadline is 0.1 s: its calls could never show a 0.3 s hang; the probes did.
  const gates::GateResult gate =
      NoHangGate(OneFastCall(), {.hang_bound = milliseconds(300), .call_deadline = milliseconds(100), .probes = r});
  EXPECT_FALSE(gate.passed);
  // The probe's own deadline (bound + margin, 0.6 s) ends the hung call: it still reads as a hang.
  EXPECT_NE(gate.message.find("; probes: " + std::to_string(r.hung) + " of " + std::to_string(r.probes) +
                              " took longer than 0.3 s (longest 0.6"),
            std::string::npos)
      << gate.message;
}

TEST(HangProbeTest, AHealthyTargetIsGreenWithTheLoadsShortDeadline) {
  HttpTestServer server([](const HttpRequest&) { return TestReply{}; });
  HangProbe probe(FetchFrom(server.address()),
                  {.hang_bound = milliseconds(300), .margin = milliseconds(300), .period = milliseconds(10),
                   .max_outstanding = 2},
                  RunClock::StartNow());
  std::this_thread::sleep_for(milliseconds(150));
  probe.Stop();
  const HangProbeResult r = probe.result();
  EXPECT_GE(r.probes, 3u);
  EXPECT_EQ(r.hung, 0u);
  const gates::GateResult gate =
      NoHangGate(OneFastCall(), {.hang_bound = milliseconds(300), .call_deadline = milliseconds(100), .probes = r});
  EXPECT_TRUE(gate.passed) << gate.message;
  EXPECT_NE(gate.message.find("probes: 0 of "), std::string::npos) << gate.message;
}

TEST(HangProbeTest, NoProbeCompletedIsRedAndAMismatchedBoundIsRefused) {
  HangProbeResult none;
  none.hang_bound = milliseconds(300);
  const gates::GateResult gate =
      NoHangGate(OneFastCall(), {.hang_bound = milliseconds(300), .call_deadline = milliseconds(100), .probes = none});
  EXPECT_FALSE(gate.passed);
  EXPECT_NE(gate.message.find("the hang probe completed no call"), std::string::npos) << gate.message;
  none.hang_bound = milliseconds(200);
  EXPECT_THROW(
      NoHangGate(OneFastCall(), {.hang_bound = milliseconds(300), .call_deadline = milliseconds(100), .probes = none}),
      std::invalid_argument);
  // Without probes a deadline below the bound still cannot see a hang.
  EXPECT_FALSE(NoHangGate(OneFastCall(), {.hang_bound = milliseconds(300), .call_deadline = milliseconds(100)}).passed);
}

TEST(HangProbeTest, ACallThatThrowsCountsAndBadOptionsAreRefused) {
  HangProbe probe([](milliseconds) { throw std::runtime_error("connect: refused"); },
                  {.hang_bound = milliseconds(300), .margin = milliseconds(0), .period = milliseconds(5),
                   .max_outstanding = 1},
                  RunClock::StartNow());
  for (int i = 0; i < 200 && probe.result().probes < 2; ++i) std::this_thread::sleep_for(milliseconds(5));
  probe.Stop();
  EXPECT_GE(probe.result().failed, 2u);
  EXPECT_EQ(probe.result().last_error, "connect: refused");
  EXPECT_THROW(HangProbe(nullptr, {}, RunClock::StartNow()), std::invalid_argument);
  EXPECT_THROW(HangProbe([](milliseconds) {}, {.max_outstanding = 0}, RunClock::StartNow()), std::invalid_argument);
}

}  // namespace hang_probe_test
}  // namespace aftershock::stress
