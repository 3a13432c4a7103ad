// MetricSampler: polls a target's Prometheus text endpoint on its own thread during a run and keeps a
// bounded time series of each selected gauge or counter, stamped on the run's clock.
//
// Used for what the load generator cannot see from outside: the database pool in use against its
// size (downstream isolation), queue depth, in-flight requests; and as a step signal of the
// breakpoint report (StepSignal). Every poll is one HttpFetch (loopback unless allowed) with its own
// timeout; a failed poll or a selector missing from a scrape adds no sample and is counted. The
// thread starts in the constructor and stops (joined) in Stop() or the destructor (RAII): a run
// cannot leave it behind; polling also ends by itself after max_duration.
//
//   MetricSampler sampler({.target = gateway.address(), .period = std::chrono::milliseconds(100),
//                          .selectors = {"gateway_pool_in_use", "gateway_pool_size"}}, clock);
//   RunResult result = runner.Run();
//   sampler.Stop();
//   std::vector<MetricSample> ratio = RatioSeries(sampler.Series("gateway_pool_in_use"),
//                                                 sampler.Series("gateway_pool_size"));
//
// Memory: at most max_samples samples (16 bytes each) per selector, and as many poll records (24
// bytes each, for Coverage); past that the oldest are dropped (counted in stats().dropped_samples).
// The default, 36,000, is an hour at 100 ms. At most 64 selectors.
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_METRIC_SAMPLER_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_METRIC_SAMPLER_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "framework/common/run_clock.h"
#include "framework/stress/prometheus_text.h"

namespace aftershock::stress {

// One value of a series at `offset_ns` after the run's start.
struct MetricSample {
  std::int64_t offset_ns = 0;
  double value = 0;
};

struct MetricSamplerOptions {
  std::string target{};  // "127.0.0.1:9090"
  std::string path = "/metrics";
  std::chrono::milliseconds period{100};    // between the starts of two polls; >= 1 ms
  std::chrono::milliseconds timeout{1000};  // of one poll; >= 1 ms
  std::vector<std::string> selectors{};     // ParseMetricSelector syntax; at least one
  std::size_t max_samples = 36000;          // per selector; >= 1
  // Polling ends by itself this long after the start (a sampler left running is still bounded).
  std::chrono::milliseconds max_duration = std::chrono::hours(6);
  bool allow_non_loopback = false;
};

struct MetricSamplerStats {
  std::uint64_t polls = 0;
  std::uint64_t failed_polls = 0;   // no 200 answer
  std::uint64_t parse_errors = 0;   // malformed lines, summed over polls
  std::uint64_t missing = 0;        // (poll, selector) pairs where the scrape had no matching sample
  std::uint64_t dropped_samples = 0;
  bool expired = false;             // polling ended at max_duration, before Stop()
  std::string last_error{};         // of the last failed poll or malformed line; empty when none
};

// How well the polls covered a window, for the selectors a gate reads: a gate that needs samples is
// red when too many of its polls gave none (a scrape that failed, a text that did not parse, a
// selector missing), never judged on the survivors alone.
struct PollCoverage {
  std::uint64_t polls = 0;         // polls that ended in the window
  std::uint64_t failed = 0;        // of them, those without a sample of every asked selector
  std::uint64_t parse_errors = 0;  // malformed lines in the window's polls
  std::string last_error{};        // the sampler's last error (any window); empty when none
  // failed / polls; 1 when there was no poll at all (nothing was seen).
  double FailedRatio() const { return polls == 0 ? 1.0 : static_cast<double>(failed) / static_cast<double>(polls); }
};

class MetricSampler {
 public:
  // Validates the options (throws std::invalid_argument naming the bad one: target, period, timeout,
  // a selector, max_samples), then starts polling at once.
  MetricSampler(MetricSamplerOptions options, RunClock clock);
  ~MetricSampler();
  MetricSampler(const MetricSampler&) = delete;
  MetricSampler& operator=(const MetricSampler&) = delete;

  // Stops polling and joins the thread (idempotent). A poll under way finishes within its timeout.
  void Stop();

  // The samples of `selector` (as given in the options, or its canonical text), oldest first.
  // Throws std::invalid_argument for a selector that is not sampled.
  std::vector<MetricSample> Series(std::string_view selector) const;
  MetricSamplerStats stats() const;
  // The polls that ended in [from_ns, to_ns) on the run's clock, and which of them gave no sample of
  // some selector of `selectors` (each as given in the options, or its canonical text; throws
  // std::invalid_argument for one not sampled). The record of polls is bounded like the series.
  PollCoverage Coverage(const std::vector<std::string>& selectors, std::int64_t from_ns = 0,
                        std::int64_t to_ns = INT64_MAX) const;

 private:
  void Loop();
  void PollOnce();
  std::size_t IndexOf(std::string_view selector) const;

  const MetricSamplerOptions options_;
  const RunClock clock_;
  std::vector<MetricSelector> selectors_{};

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<std::deque<MetricSample>> series_{};  // parallel to selectors_
  struct PollRecord {
    std::int64_t offset_ns = 0;
    std::uint64_t sampled = 0;       // bit i: the poll gave a sample of selector i
    std::uint32_t parse_errors = 0;
  };
  std::deque<PollRecord> polls_{};  // at most max_samples, oldest dropped
  MetricSamplerStats stats_;
  std::thread thread_;  // last: started once everything above exists
};

// in_use / size at the polls both series have (joined on offset_ns); a sample whose size is 0 is left
// out. For a pool's saturation, e.g. downstream isolation.
std::vector<MetricSample> RatioSeries(const std::vector<MetricSample>& numerator,
                                      const std::vector<MetricSample>& denominator);

}  // namespace aftershock::stress

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_METRIC_SAMPLER_H_
