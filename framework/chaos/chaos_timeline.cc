#include "framework/chaos/chaos_timeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace aftershock::chaos {
namespace {

// CSV cells are quoted only when they need it.
std::string Cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

ChaosTimeline::ChaosTimeline(const ChaosTimeline& other) : clock_(other.clock_), events_(other.events()) {}

ChaosTimeline& ChaosTimeline::operator=(const ChaosTimeline& other) {
  if (this != &other) {
    auto copy = other.events();
    std::lock_guard<std::mutex> lock(mu_);
    clock_ = other.clock_;
    events_ = std::move(copy);
  }
  return *this;
}

void ChaosTimeline::SetListener(std::function<void(const ChaosEvent&)> listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listener_ = std::move(listener);
}

void ChaosTimeline::Record(Clock::time_point at, std::string event, std::string fault, std::string detail) {
  ChaosEvent e;
  e.unix_ms = clock_.UnixMs(at);
  e.seconds = std::round(std::chrono::duration<double>(clock_.Since(at)).count() * 1000.0) / 1000.0;
  e.event = std::move(event);
  e.fault = std::move(fault);
  e.detail = std::move(detail);
  std::function<void(const ChaosEvent&)> listener;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // In time order: a confirmation is recorded when it is answered, stamped when it was observed.
    const auto at_or_after = std::upper_bound(events_.begin(), events_.end(), e.seconds,
                                              [](double s, const ChaosEvent& x) { return s < x.seconds; });
    events_.insert(at_or_after, e);
    listener = listener_;
  }
  if (listener) listener(e);
}

std::vector<ChaosEvent> ChaosTimeline::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

std::vector<FaultSpan> ChaosTimeline::Spans(std::int64_t run_end_second) const {
  std::vector<FaultSpan> spans;
  std::map<std::string, std::size_t> open;
  for (const ChaosEvent& e : events()) {
    const auto second = static_cast<std::int64_t>(std::floor(e.seconds));
    const double ms = e.seconds * 1000.0;
    if (e.event == "action") {
      spans.push_back({e.fault, second, second, ms, ms});
    } else if (e.event == "apply") {
      open[e.fault] = spans.size();
      spans.push_back({e.fault, second, run_end_second, ms, static_cast<double>(run_end_second) * 1000.0});
    } else if (e.event == "revert") {
      auto it = open.find(e.fault);
      if (it != open.end()) {
        spans[it->second].end_second = second;
        spans[it->second].revert_ms = ms;
        open.erase(it);
      }
    }
  }
  return spans;
}

std::size_t ChaosTimeline::WriteCsv(std::ostream& out) const {
  out << "unix_ms,second,event,fault,detail\n";
  std::size_t rows = 0;
  char buf[32];
  for (const ChaosEvent& e : events()) {
    std::snprintf(buf, sizeof buf, "%.3f", e.seconds);
    out << e.unix_ms << ',' << buf << ',' << Cell(e.event) << ',' << Cell(e.fault) << ',' << Cell(e.detail) << '\n';
    ++rows;
  }
  return rows;
}

}  // namespace aftershock::chaos
