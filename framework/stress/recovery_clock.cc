#include "framework/stress/recovery_clock.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "framework/stress/internal/format.h"

namespace aftershock::stress {
namespace {

using internal::Num;
using internal::SecondsToNs;

struct Completion {
  std::int64_t completed_ns;
  std::int64_t latency_ns;
  bool ok;
};

void Validate(const RecoveryOptions& o) {
  auto bad = [](const std::string& why) { throw std::invalid_argument("recovery clock: " + why); };
  if (!(o.drop_seconds >= 0) || !std::isfinite(o.drop_seconds)) bad("drop_seconds must be set (>= 0)");
  if (o.end_seconds >= 0 && !(o.end_seconds > o.drop_seconds)) bad("end_seconds must be after drop_seconds");
  if (!(o.p99_target_ms > 0)) bad("p99_target_ms must be > 0");
  if (!(o.error_ratio_floor >= 0 && o.error_ratio_floor <= 1)) bad("error_ratio_floor must be in [0, 1]");
  if (!(o.window_seconds > 0)) bad("window_seconds must be > 0");
  if (!(o.sustain_seconds >= o.window_seconds)) bad("sustain_seconds must be >= window_seconds");
  if (!(o.resolution_seconds > 0) || o.resolution_seconds > o.window_seconds) {
    bad("resolution_seconds must be in (0, window_seconds]");
  }
}

// "" when the window is healthy, else why not.
std::string Judge(std::vector<std::int64_t>& latencies, std::size_t failed, const RecoveryOptions& o) {
  const std::size_t n = latencies.size();
  if (n < std::max<std::size_t>(o.min_calls_per_window, 1)) {
    return "only " + std::to_string(n) + " calls completed";
  }
  const double error_ratio = static_cast<double>(failed) / static_cast<double>(n);
  std::string why;
  if (error_ratio > o.error_ratio_floor) {
    why = "error ratio " + Num(error_ratio) + " > " + Num(o.error_ratio_floor) + " (" + std::to_string(failed) + " of " +
          std::to_string(n) + ")";
  }
  // Nearest rank, as LatencyHistogram: the ceil(0.99 n)-th smallest.
  const std::size_t rank = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(n))) - 1;
  std::nth_element(latencies.begin(), latencies.begin() + static_cast<std::ptrdiff_t>(rank), latencies.end());
  const double p99_ms = static_cast<double>(latencies[rank]) / 1e6;
  if (p99_ms > o.p99_target_ms) {
    why += (why.empty() ? "" : ", ") + std::string("p99 ") + Num(p99_ms) + " ms > " + Num(o.p99_target_ms) + " ms";
  }
  return why;
}

}  // namespace

RecoveryMeasurement MeasureRecovery(const CallLog& log, const RecoveryOptions& o) {
  Validate(o);
  const std::int64_t drop_ns = SecondsToNs(o.drop_seconds);
  std::vector<Completion> calls;
  std::int64_t last_ns = drop_ns;
  for (const CallRecord& r : log.records) {
    last_ns = std::max(last_ns, r.completed_ns);
    if (r.completed_ns >= drop_ns) calls.push_back({r.completed_ns, r.latency_ns(), r.ok});
  }
  const std::int64_t end_ns = o.end_seconds >= 0 ? SecondsToNs(o.end_seconds) : last_ns;
  std::sort(calls.begin(), calls.end(),
            [](const Completion& a, const Completion& b) { return a.completed_ns < b.completed_ns; });

  RecoveryMeasurement m;
  m.evaluated_until = static_cast<double>(end_ns) / 1e9;
  m.incomplete = log.IncompleteReason(end_ns, /*by_completion=*/true);

  const std::int64_t window_ns = SecondsToNs(o.window_seconds);
  const std::int64_t step_ns = SecondsToNs(o.resolution_seconds);
  // Consecutive healthy windows that cover the sustain window: starts t, t + step, ..., t + W - window.
  const auto needed = static_cast<std::size_t>(std::llround((o.sustain_seconds - o.window_seconds) / o.resolution_seconds)) + 1;

  std::size_t begin = 0, end = 0;  // calls[begin, end) complete inside the current window
  std::size_t healthy_run = 0;
  std::vector<std::int64_t> latencies;
  for (std::int64_t k = 0;; ++k) {
    const std::int64_t from = drop_ns + k * step_ns;
    const std::int64_t to = from + window_ns;
    if (to > end_ns) break;
    while (begin < calls.size() && calls[begin].completed_ns < from) ++begin;
    end = std::max(end, begin);
    while (end < calls.size() && calls[end].completed_ns < to) ++end;
    latencies.clear();
    std::size_t failed = 0;
    for (std::size_t i = begin; i < end; ++i) {
      latencies.push_back(calls[i].latency_ns);
      failed += calls[i].ok ? 0 : 1;
    }
    const std::string why = Judge(latencies, failed, o);
    if (!why.empty()) {
      healthy_run = 0;
      m.last_unhealthy = "window " + Num(static_cast<double>(from) / 1e9) + ".." + Num(static_cast<double>(to) / 1e9) +
                         " s: " + why;
      continue;
    }
    if (++healthy_run == needed) {
      const std::int64_t start_ns = from - static_cast<std::int64_t>(needed - 1) * step_ns;
      m.recovered = true;
      m.seconds = static_cast<double>(start_ns - drop_ns) / 1e9;
      m.recovered_at = static_cast<double>(start_ns) / 1e9;
      return m;
    }
  }
  if (m.last_unhealthy.empty() || healthy_run > 0) {
    m.last_unhealthy += std::string(m.last_unhealthy.empty() ? "" : "; then ") + "the run ended " +
                        Num(static_cast<double>(end_ns - drop_ns) / 1e9) + " s after the drop, before a healthy " +
                        "window of " + Num(o.sustain_seconds) + " s";
  }
  return m;
}

std::optional<double> ErrorRatio(const CallLog& log, double from_seconds, double to_seconds) {
  const std::int64_t from = SecondsToNs(from_seconds), to = SecondsToNs(to_seconds);
  std::uint64_t n = 0, failed = 0;
  for (const CallRecord& r : log.records) {
    if (r.completed_ns < from || r.completed_ns >= to) continue;
    ++n;
    failed += r.ok ? 0 : 1;
  }
  if (n == 0) return std::nullopt;
  return static_cast<double>(failed) / static_cast<double>(n);
}

}  // namespace aftershock::stress
