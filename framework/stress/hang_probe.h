// HangProbe: watches a target for hung calls with probe calls of its own, so that the load keeps its
// real call deadline. The no-hang contract ("no connection hangs > 30 s") cannot be observed through
// calls whose deadline is shorter than the bound: they are cut first. Raising the load's deadline
// above the bound forces the in-flight ceiling (and an HTTP pool) to rate x 35 s for a target that
// answers in a millisecond. A few probe calls with a deadline past the bound see what the load cannot.
//
// `max_outstanding` threads each make one probe call, then wait their turn, staggered so that the
// target sees one probe every `period`; a probe that hangs blocks only its own thread, the others go
// on. Each call runs synchronously and must return by the deadline it is given (the bound plus a
// margin): a call that took longer than the bound is a hang. RAII: the threads stop in Stop() or the
// destructor, waiting for calls under way (bounded by their deadline).
//
//   HangProbe probe([&](std::chrono::milliseconds deadline) {
//     load::HttpFetch(address, {.method = "POST", .target = "/payments", .body = probe_body}, deadline);
//   }, {.hang_bound = std::chrono::seconds(30)}, clock);
//   RunResult result = runner.Run();
//   probe.Stop();
//   NoHangGate(log, {.hang_bound = 30s, .call_deadline = 2s, .probes = probe.result()});
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_HANG_PROBE_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_HANG_PROBE_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "framework/common/run_clock.h"

namespace aftershock::stress {

struct HangProbeOptions {
  std::chrono::milliseconds hang_bound{30000};  // a call longer than this is a hang
  std::chrono::milliseconds margin{1000};       // a probe's deadline is hang_bound + margin
  std::chrono::milliseconds period{1000};       // one probe every period, over all threads; >= 1 ms
  int max_outstanding = 4;                      // probe threads (probes under way at once); >= 1
};

// What the probes saw, on the run's clock.
struct HangProbeResult {
  std::uint64_t probes = 0;             // probe calls that returned
  std::uint64_t hung = 0;               // of them, those longer than hang_bound
  std::uint64_t failed = 0;             // calls that threw (their latency still counts)
  std::int64_t max_latency_ns = 0;
  std::vector<double> hung_at_seconds;  // run seconds at which the first few hung probes started
  std::string last_error;               // of the last call that threw
  std::chrono::milliseconds hang_bound{0};
};

class HangProbe {
 public:
  using ProbeCall = std::function<void(std::chrono::milliseconds deadline)>;

  // Throws std::invalid_argument for an empty call or options out of range; starts probing at once.
  HangProbe(ProbeCall call, HangProbeOptions options, RunClock clock);
  ~HangProbe();
  HangProbe(const HangProbe&) = delete;
  HangProbe& operator=(const HangProbe&) = delete;

  // Stops starting probes and joins the threads (idempotent); a probe under way ends by its deadline.
  void Stop();
  HangProbeResult result() const;

 private:
  void Loop(int index);

  const ProbeCall call_;
  const HangProbeOptions options_;
  const RunClock clock_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  HangProbeResult result_;
  std::vector<std::thread> threads_;  // last: started once everything above exists
};

}  // namespace aftershock::stress

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_HANG_PROBE_H_
