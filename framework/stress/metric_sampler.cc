#include "framework/stress/metric_sampler.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "framework/load/http_client.h"

namespace aftershock::stress {

MetricSampler::MetricSampler(MetricSamplerOptions options, RunClock clock)
    : options_(std::move(options)), clock_(clock) {
  if (options_.period.count() < 1) throw std::invalid_argument("MetricSampler: period must be >= 1 ms");
  if (options_.timeout.count() < 1) throw std::invalid_argument("MetricSampler: timeout must be >= 1 ms");
  if (options_.max_samples < 1) throw std::invalid_argument("MetricSampler: max_samples must be >= 1");
  if (options_.max_duration.count() < 1) throw std::invalid_argument("MetricSampler: max_duration must be >= 1 ms");
  if (options_.selectors.empty()) throw std::invalid_argument("MetricSampler: no selectors (nothing to sample)");
  if (options_.selectors.size() > 64) throw std::invalid_argument("MetricSampler: at most 64 selectors");
  if (options_.path.empty() || options_.path.front() != '/') {
    throw std::invalid_argument("MetricSampler: path '" + options_.path + "' must start with '/'");
  }
  load::ParseHttpHostPort(options_.target, options_.allow_non_loopback);  // throws naming the target
  for (const std::string& text : options_.selectors) {
    MetricSelector selector = ParseMetricSelector(text);
    for (const MetricSelector& other : selectors_) {
      if (other.text == selector.text) {
        throw std::invalid_argument("MetricSampler: selector '" + text + "' is given twice");
      }
    }
    selectors_.push_back(std::move(selector));
  }
  series_.resize(selectors_.size());
  thread_ = std::thread([this] { Loop(); });
}

MetricSampler::~MetricSampler() { Stop(); }

void MetricSampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MetricSampler::Loop() {
  auto next = Clock::now();
  const auto expiry = next + options_.max_duration;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
      if (Clock::now() >= expiry) {
        stats_.expired = true;
        return;
      }
    }
    PollOnce();
    next += options_.period;
    // A poll slower than the period: start the next one now, never a burst to catch up.
    next = std::max(next, Clock::now());
  }
}

void MetricSampler::PollOnce() {
  const load::HttpReply reply = load::HttpFetch(options_.target, {.target = options_.path}, options_.timeout,
                                                options_.allow_non_loopback);
  const std::int64_t offset_ns = clock_.Since(Clock::now()).count();
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.polls;
  polls_.push_back({offset_ns, 0, 0});
  if (polls_.size() > options_.max_samples) polls_.pop_front();
  PollRecord& poll = polls_.back();
  if (reply.status != 200) {
    ++stats_.failed_polls;
    stats_.last_error = reply.status != 0 ? "GET " + options_.target + options_.path + " answered " +
                                                std::to_string(reply.status)
                                          : reply.error;
    return;
  }
  const PromText text = ParsePrometheusText(reply.body);
  stats_.parse_errors += text.errors.size();
  poll.parse_errors = static_cast<std::uint32_t>(text.errors.size());
  if (!text.errors.empty()) stats_.last_error = options_.target + options_.path + " " + text.errors.front();
  for (std::size_t i = 0; i < selectors_.size(); ++i) {
    const std::optional<double> value = selectors_[i].Find(text.samples);
    if (!value) {
      ++stats_.missing;
      continue;
    }
    poll.sampled |= std::uint64_t{1} << i;
    std::deque<MetricSample>& series = series_[i];
    series.push_back({offset_ns, *value});
    if (series.size() > options_.max_samples) {
      series.pop_front();
      ++stats_.dropped_samples;
    }
  }
}

std::size_t MetricSampler::IndexOf(std::string_view selector) const {
  for (std::size_t i = 0; i < selectors_.size(); ++i) {
    if (options_.selectors[i] == selector || selectors_[i].text == selector) return i;
  }
  throw std::invalid_argument("MetricSampler: '" + std::string(selector) + "' is not a sampled selector");
}

std::vector<MetricSample> MetricSampler::Series(std::string_view selector) const {
  const std::size_t i = IndexOf(selector);
  std::lock_guard<std::mutex> lock(mu_);
  return {series_[i].begin(), series_[i].end()};
}

MetricSamplerStats MetricSampler::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

PollCoverage MetricSampler::Coverage(const std::vector<std::string>& selectors, std::int64_t from_ns,
                                     std::int64_t to_ns) const {
  std::uint64_t wanted = 0;
  for (const std::string& selector : selectors) wanted |= std::uint64_t{1} << IndexOf(selector);
  PollCoverage coverage;
  std::lock_guard<std::mutex> lock(mu_);
  for (const PollRecord& poll : polls_) {
    if (poll.offset_ns < from_ns || poll.offset_ns >= to_ns) continue;
    ++coverage.polls;
    if ((poll.sampled & wanted) != wanted) ++coverage.failed;
    coverage.parse_errors += poll.parse_errors;
  }
  coverage.last_error = stats_.last_error;
  return coverage;
}

std::vector<MetricSample> RatioSeries(const std::vector<MetricSample>& numerator,
                                      const std::vector<MetricSample>& denominator) {
  std::vector<MetricSample> out;
  std::size_t j = 0;
  for (const MetricSample& n : numerator) {
    while (j < denominator.size() && denominator[j].offset_ns < n.offset_ns) ++j;
    if (j == denominator.size()) break;
    if (denominator[j].offset_ns != n.offset_ns || denominator[j].value == 0) continue;
    out.push_back({n.offset_ns, n.value / denominator[j].value});
  }
  return out;
}

}  // namespace aftershock::stress
