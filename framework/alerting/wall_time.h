// Wall-clock time points for the alert chain: Prometheus, Alertmanager and the sinks stamp events
// in Unix time, so the chain is judged on system_clock (not the run's steady clock).
//
//   WallTime now = WallClock::now();
//   double unix_s = ToUnixSeconds(now);   // what /api/v1/query?time= expects
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_WALL_TIME_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_WALL_TIME_H_

#include <chrono>
#include <cmath>

namespace aftershock::alerting {

using WallClock = std::chrono::system_clock;
using WallTime = WallClock::time_point;

inline double ToUnixSeconds(WallTime time) {
  return std::chrono::duration<double>(time.time_since_epoch()).count();
}

inline WallTime FromUnixSeconds(double seconds) {
  return WallTime(std::chrono::duration_cast<WallClock::duration>(
      std::chrono::duration<double>(seconds)));
}

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_WALL_TIME_H_
