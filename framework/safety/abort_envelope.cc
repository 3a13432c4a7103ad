#include "framework/safety/abort_envelope.h"

#include <cstdio>
#include <exception>
#include <set>
#include <stdexcept>

namespace aftershock::safety {

AbortEnvelope::AbortEnvelope(std::vector<StopCondition> conditions, AbortEnvelopeOptions options)
    : conditions_(std::move(conditions)), options_(options) {
  if (options_.interval < std::chrono::milliseconds(10) || options_.interval > std::chrono::seconds(60)) {
    throw std::invalid_argument("AbortEnvelope: interval " + std::to_string(options_.interval.count()) +
                                " ms is outside 10 ms .. 60 s");
  }
  std::set<std::string> names;
  for (const StopCondition& c : conditions_) {
    if (c.name.empty()) throw std::invalid_argument("AbortEnvelope: a stop condition has no name");
    if (!c.evaluate) throw std::invalid_argument("AbortEnvelope: stop condition '" + c.name + "' has no evaluator");
    if (!names.insert(c.name).second) {
      throw std::invalid_argument("AbortEnvelope: two stop conditions are named '" + c.name + "'");
    }
  }
  trackers_.reserve(conditions_.size());
  for (const StopCondition& c : conditions_) {
    trackers_.emplace_back(c);
    statuses_.push_back(trackers_.back().status());
  }
  threads_.reserve(conditions_.size());
  for (std::size_t i = 0; i < conditions_.size(); ++i) threads_.emplace_back([this, i] { Watch(i); });
}

AbortEnvelope::~AbortEnvelope() { Stop(); }

void AbortEnvelope::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void AbortEnvelope::Watch(std::size_t index) {
  const StopCondition& condition = conditions_[index];
  ConditionTracker& tracker = trackers_[index];
  auto next = Clock::now();
  while (true) {
    Reading reading;
    try {
      reading = condition.evaluate();
    } catch (const std::exception& e) {
      reading = Reading::Failed(std::string("the reading threw: ") + e.what());
    } catch (...) {
      reading = Reading::Failed("the reading threw");
    }
    const bool first_failure = !reading.error.empty() && tracker.status().failures == 0;
    std::optional<Breach> breach = tracker.Observe(reading, Clock::now());
    if (first_failure) {
      // Reported when it starts, not only in the verdict: the watch may be blind from here on.
      std::fprintf(stderr, "aftershock: stop condition '%s' cannot read %s: %s\n", condition.name.c_str(),
                   condition.what.c_str(), reading.error.c_str());
    }
    std::unique_lock<std::mutex> lock(mu_);
    statuses_[index] = tracker.status();
    if (breach && !first_) {
      first_ = std::move(breach);
      breached_.store(true, std::memory_order_release);
    }
    next += options_.interval;
    if (next < Clock::now()) next = Clock::now();  // a slow reading does not cause a burst of them
    if (cv_.wait_until(lock, next, [this] { return stop_; })) return;
  }
}

std::optional<Breach> AbortEnvelope::first_breach() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_;
}

std::optional<scenario::AbortRequest> AbortEnvelope::FirstBreach() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!first_) return std::nullopt;
  return scenario::AbortRequest{.condition = first_->condition, .reason = first_->reason, .at = first_->at,
                                .wall_at = first_->wall_at};
}

std::vector<ConditionStatus> AbortEnvelope::statuses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return statuses_;
}

std::vector<std::string> AbortEnvelope::Notes() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> notes;
  std::size_t stops = 0;
  bool halt = false;
  for (const StopCondition& c : conditions_) {
    if (c.name == "operator-halt") {
      halt = true;
    } else {
      ++stops;
    }
  }
  std::string watched = stops == 0 ? "" : std::to_string(stops) + " stop condition" + (stops == 1 ? "" : "s");
  if (halt) watched += watched.empty() ? "the operator halt" : " and the operator halt";
  notes.push_back(watched + " read every " + std::to_string(options_.interval.count()) + " ms");
  for (const ConditionStatus& s : statuses_) {
    if (s.failures == 0) continue;
    notes.push_back("stop condition '" + s.name + "' could not be read " + std::to_string(s.failures) + " of " +
                    std::to_string(s.readings) + " times (last: " + s.last_error + ")");
  }
  return notes;
}

}  // namespace aftershock::safety
