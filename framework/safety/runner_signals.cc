#include "framework/safety/runner_signals.h"

#include <cmath>

#include "framework/common/call_code.h"

namespace aftershock::safety {
namespace {

int WindowSeconds(std::chrono::milliseconds window) {
  return std::max(1, static_cast<int>(std::ceil(static_cast<double>(window.count()) / 1000.0)));
}

std::uint64_t CountOf(const metrics::SecondBucket& b, CallCode code) {
  auto it = b.failed_by_code.find(code);
  return it == b.failed_by_code.end() ? 0 : it->second;
}

std::uint64_t Completed(const metrics::SecondBucket& b) { return b.ok + b.failed + b.generator_failed; }

Reading Ratio(std::uint64_t part, std::uint64_t whole, const char* of) {
  if (whole == 0) return Reading::Nothing(std::string("no ") + of + " in the window");
  return Reading::Of(static_cast<double>(part) / static_cast<double>(whole),
                     std::to_string(part) + " of " + std::to_string(whole) + " " + of);
}

}  // namespace

const std::vector<std::string>& RunnerSignalNames() {
  static const std::vector<std::string> names = {"transport_error_ratio", "not_sent_ratio", "error_ratio",
                                                 "shed_ratio",            "p99_latency_ms", "in_flight"};
  return names;
}

std::optional<SignalSource> RunnerSignal(const load::OpenModelRunner& runner, std::string_view name) {
  const load::OpenModelRunner* r = &runner;
  if (name == "transport_error_ratio") {
    return SignalSource([r](std::chrono::milliseconds w) {
      const metrics::SecondBucket b = r->Recent(WindowSeconds(w));
      return Ratio(CountOf(b, kCodeTransportError), Completed(b), "calls completed");
    });
  }
  if (name == "not_sent_ratio") {
    return SignalSource([r](std::chrono::milliseconds w) {
      const metrics::SecondBucket b = r->Recent(WindowSeconds(w));
      return Ratio(CountOf(b, kCodeNotSent), Completed(b), "calls completed");
    });
  }
  if (name == "error_ratio") {
    return SignalSource([r](std::chrono::milliseconds w) {
      const metrics::SecondBucket b = r->Recent(WindowSeconds(w));
      return Ratio(b.failed, b.ok + b.failed, "calls completed");
    });
  }
  if (name == "shed_ratio") {
    return SignalSource([r](std::chrono::milliseconds w) {
      const metrics::SecondBucket b = r->Recent(WindowSeconds(w));
      return Ratio(b.shed, b.offered, "arrivals offered");
    });
  }
  if (name == "p99_latency_ms") {
    return SignalSource([r](std::chrono::milliseconds w) {
      const metrics::SecondBucket b = r->Recent(WindowSeconds(w));
      if (b.latency.Count() == 0) return Reading::Nothing("no calls completed in the window");
      return Reading::Of(static_cast<double>(b.latency.ValueAtPercentile(99)) / 1e6,
                         std::to_string(b.latency.Count()) + " calls completed");
    });
  }
  if (name == "in_flight") {
    return SignalSource([r](std::chrono::milliseconds) {
      return Reading::Of(static_cast<double>(r->Progress().in_flight));
    });
  }
  return std::nullopt;
}

}  // namespace aftershock::safety
