// Prometheus duration text ("5m", "1h30m", "250ms") to and from milliseconds.
//
//   std::chrono::milliseconds d = ParsePromDuration("1h30m");   // 5'400'000 ms
//   std::string text = FormatPromDuration(std::chrono::seconds(90));  // "90s"
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_PROM_DURATION_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_PROM_DURATION_H_

#include <chrono>
#include <string>

namespace aftershock::alerting {

// Accepts Prometheus' grammar: one or more <integer><unit> with units y, w, d, h, m, s, ms in
// descending order ("0" alone is zero). Throws std::invalid_argument naming the text otherwise.
std::chrono::milliseconds ParsePromDuration(const std::string& text);

// The largest single unit of h, m, s, ms that represents `duration` exactly ("36m", "90s",
// "864s", "750ms"); "0s" for zero. Throws std::invalid_argument for a negative duration.
std::string FormatPromDuration(std::chrono::milliseconds duration);

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_PROM_DURATION_H_
