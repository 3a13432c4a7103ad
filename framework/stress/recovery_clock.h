// RecoveryClock: the stop-clock of recovery velocity (seed 003, INV-STRESS-02). From the moment the
// overload ends (the drop: the start of the stage after the plateau) to the first moment t from which
// the target is healthy again for a sustained window W: every evaluation window of completed calls
// inside [t, t + W) has p99 <= the target and an error ratio <= the baseline floor.
//
// Evaluated on the ResponseRecorder's per-call records by completion time (what a client sees at t:
// calls from the plateau still timing out after the drop count against recovery), on sliding windows
// of window_seconds stepped by resolution_seconds (default 1 s windows every 100 ms), so the figure has
// sub-second resolution. A window in which nothing completed is not healthy (a hung target is not a
// recovered one). The clock stops at `end_seconds` (default: the last completion): a target still
// unhealthy then "never recovered within the run".
//
//   RecoveryOptions options{.drop_seconds = 70, .end_seconds = 130, .p99_target_ms = 25,
//                           .error_ratio_floor = 0, .sustain_seconds = 5};
//   RecoveryMeasurement m = MeasureRecovery(recorder.Log(), options);
//   if (m.recovered) std::cout << "recovered in " << m.seconds << " s\n";
//
// The baseline floor is a knob; ErrorRatio() measures it over a baseline window (e.g. the nominal
// stage before the overload) when the suite wants "back to what it was" rather than a fixed ratio.
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_RECOVERY_CLOCK_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_RECOVERY_CLOCK_H_

#include <cstdint>
#include <optional>
#include <string>

#include "framework/stress/response_recorder.h"

namespace aftershock::stress {

struct RecoveryOptions {
  double drop_seconds = -1;         // the drop, seconds since the run's start; required (>= 0)
  double end_seconds = -1;          // where the clock stops; < 0: the last completion recorded
  double p99_target_ms = 25;        // the seed: p99 back to <= 25 ms
  double error_ratio_floor = 0;     // the seed: error rate back to 0.00%
  double sustain_seconds = 5;       // W: how long it must hold
  double window_seconds = 1;        // each evaluation window; <= sustain_seconds
  double resolution_seconds = 0.1;  // the slide step, and the figure's resolution
  std::size_t min_calls_per_window = 1;  // fewer completions: the window is not healthy
};

struct RecoveryMeasurement {
  bool recovered = false;
  double seconds = -1;          // from the drop to recovery; -1 when never
  double recovered_at = -1;     // seconds since the run's start; -1 when never
  double evaluated_until = 0;   // the clock's end, seconds since the run's start
  // The last unhealthy window before recovery (or the last one at all when never): why it was not.
  std::string last_unhealthy{};
  std::string incomplete{};     // non-empty: the recorder dropped calls inside the measured range
};

// Throws std::invalid_argument for options out of range (naming the option).
RecoveryMeasurement MeasureRecovery(const CallLog& log, const RecoveryOptions& options);

// The error ratio (failed / completed) of calls completed in [from, to) seconds; nullopt when none.
std::optional<double> ErrorRatio(const CallLog& log, double from_seconds, double to_seconds);

}  // namespace aftershock::stress

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_RECOVERY_CLOCK_H_
