// The stress gates of seed 003 (the banking design), each a function returning a GateResult that a
// suite adds to its verdict (fixtures' JudgeOptions::suite_gates), like alerting's chain gates:
//
//   shedding-contract     under the overload plateau, admitted goodput >= a fraction of the stated
//                         capacity, and every call that was not admitted was shed cleanly: a shed
//                         status (429/503), the required header(s) (Retry-After) and the diagnostic
//                         body; any other outcome (a 500, a deadline, a reset, the generator's
//                         in-flight ceiling filling up because the target queued) is a violation,
//                         counted by kind with its first examples (INV-STRESS-01)
//   shed-latency          p99 of shed responses, measured from the actual send, <= budget (1.5 ms)
//   no-hang               no request took longer than the hang bound (30 s), the load's calls and the
//                         probes of a HangProbe (hang_probe.h) alike; red with the reason when the call
//                         deadline does not exceed the bound and no probe watched (a hang could not be
//                         seen); red when the probes never completed a call
//   target-alive          the target neither exited, was killed nor restarted, and answered at the end
//   recovery-velocity     RecoveryClock from the drop to sustained health <= limit (60 s, INV-STRESS-02)
//   downstream-isolation  sampled pool in_use / size never above 0.8 (INV-STRESS-03); red when the
//                         pool was not seen (no sample, or too many failed scrapes)
//
// A gate with nothing to judge (no call in its window, no shed response to time) is "not
// applicable", never PASS. A gate whose window the recorder could not keep whole (its memory
// bound) is red with that reason: a part is never judged as the whole.
//
//   const CallLog log = recorder.Log();
//   const TimeWindow plateau = StageWindow(profile, "plateau", /*skip_seconds=*/2);
//   std::vector<gates::GateResult> gates = {
//       SheddingContractGate(log, {.plateau = plateau, .capacity_rate = 1500}),
//       ShedLatencyGate(log, {.window = plateau}),
//       NoHangGate(log, {.call_deadline = options.call_deadline}),
//       TargetAliveGate(liveness),
//       RecoveryVelocityGate(log, {.clock = {.drop_seconds = plateau_end}}),
//       DownstreamIsolationGate(sampler.Series("pool_in_use"), sampler.Series("pool_size"), {})};
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_STRESS_GATES_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_STRESS_GATES_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "framework/gates/gate_result.h"
#include "framework/load/rate_profile.h"
#include "framework/metrics/load_timeline.h"
#include "framework/stress/hang_probe.h"
#include "framework/stress/metric_sampler.h"
#include "framework/stress/recovery_clock.h"
#include "framework/stress/response_recorder.h"

namespace aftershock::stress {

inline constexpr std::string_view kSheddingContract = "shedding-contract";
inline constexpr std::string_view kShedLatency = "shed-latency";
inline constexpr std::string_view kNoHang = "no-hang";
inline constexpr std::string_view kTargetAlive = "target-alive";
inline constexpr std::string_view kRecoveryVelocity = "recovery-velocity";
inline constexpr std::string_view kDownstreamIsolation = "downstream-isolation";

// [from, to) in seconds since the run's start.
struct TimeWindow {
  double from_seconds = 0;
  double to_seconds = 0;
  bool empty() const { return !(to_seconds > from_seconds); }
};

// The range of the stage named `stage` in the expanded profile (all its consecutive parts, e.g. every
// step), its first `skip_seconds` left out. Throws std::invalid_argument when there is no such stage
// or the skip leaves nothing.
TimeWindow StageWindow(const load::RateProfile& profile, std::string_view stage, double skip_seconds = 0);

struct SheddingContractOptions {
  TimeWindow plateau{};             // calls by intended time; required
  double capacity_rate = 0;         // the stated capacity, successful calls/s; required (> 0)
  double min_goodput_fraction = 0.9;
  bool require_shedding = true;     // nothing shed under the plateau is red: it did not overload the target
  std::size_t max_examples = 3;     // per kind of violation
  // Optional: the run's timeline, to count arrivals the generator's in-flight ceiling refused in the
  // plateau's seconds (the target held requests instead of shedding them).
  const metrics::LoadTimeline* timeline = nullptr;
};
gates::GateResult SheddingContractGate(const CallLog& log, const SheddingContractOptions& options);

struct ShedLatencyOptions {
  TimeWindow window{};      // calls by intended time; empty: the whole run
  double budget_ms = 1.5;   // the seed: shed in < 1.5 ms
  double percentile = 99;
};
gates::GateResult ShedLatencyGate(const CallLog& log, const ShedLatencyOptions& options);

struct NoHangOptions {
  std::chrono::milliseconds hang_bound{30000};   // the seed: no connection hanging > 30 s
  // The runner's call deadline; required. Without probes it must exceed the bound (a call is cut at
  // its deadline, so a hang past the bound would never be seen).
  std::chrono::milliseconds call_deadline{0};
  // What a HangProbe saw (hang_probe.h): with it, the load keeps its own deadline (below the bound)
  // and the probes, whose deadline is past the bound, watch for hangs. Its hang_bound must be this one.
  std::optional<HangProbeResult> probes{};
};
gates::GateResult NoHangGate(const CallLog& log, const NoHangOptions& options);

// What the suite knows of the target process over the run (its supervisor, child process, or cluster).
struct TargetLiveness {
  bool observed = false;            // false: nobody looked (the gate is not applicable)
  std::string target = "target";    // its name in the message
  bool running_at_end = true;
  std::optional<int> exit_code{};   // it exited during the run with this status
  std::optional<int> signal{};      // it was killed by this signal (9: e.g. an OOM kill)
  int restarts = 0;                 // restarts seen during the run
  std::optional<bool> healthy_at_end{};  // the health probe after the run, when one was made
  std::string detail{};             // e.g. its log's last lines, added to a red message
};
gates::GateResult TargetAliveGate(const TargetLiveness& liveness);
// Calls `probe` once; a probe that throws is a red gate with the exception's text.
gates::GateResult TargetAliveGate(const std::function<TargetLiveness()>& probe);

struct RecoveryVelocityOptions {
  RecoveryOptions clock{};    // clock.drop_seconds is required
  double limit_seconds = 60;  // the seed: recovery <= 60 s
};
gates::GateResult RecoveryVelocityGate(const CallLog& log, const RecoveryVelocityOptions& options);

struct DownstreamIsolationOptions {
  double max_ratio = 0.8;           // the seed: pool in use never above 80% of its size
  TimeWindow window{};              // samples by time; empty: every sample
  std::string pool = "the pool";    // its name in the message
  // The sampler's polls of in_use and size in the window (MetricSampler::Coverage); when given, more
  // than max_failed_poll_ratio of them without a sample is red, never judged on the survivors.
  std::optional<PollCoverage> coverage{};
  double max_failed_poll_ratio = 0.05;
};
// in_use and size as MetricSampler sampled them (joined per poll by RatioSeries).
gates::GateResult DownstreamIsolationGate(const std::vector<MetricSample>& in_use,
                                          const std::vector<MetricSample>& size,
                                          const DownstreamIsolationOptions& options);

}  // namespace aftershock::stress

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_STRESS_GATES_H_
