#include "framework/metrics/load_timeline.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "framework/metrics/internal/format.h"

namespace aftershock::metrics {

void SecondBucket::Merge(const SecondBucket& other) {
  if (stage.empty()) stage = other.stage;
  offered += other.offered;
  ok += other.ok;
  ok_completed += other.ok_completed;
  failed += other.failed;
  shed += other.shed;
  retries += other.retries;
  first_attempt_failed += other.first_attempt_failed;
  indeterminate += other.indeterminate;
  generator_failed += other.generator_failed;
  for (const auto& [code, count] : other.failed_by_code) failed_by_code[code] += count;
  latency.Merge(other.latency);
  ok_latency.Merge(other.ok_latency);
  dispatch_lag.Merge(other.dispatch_lag);
  auto min_of = [](std::int64_t a, std::int64_t b) { return a < 0 ? b : (b < 0 ? a : std::min(a, b)); };
  first_ok_of_intended_ns = min_of(first_ok_of_intended_ns, other.first_ok_of_intended_ns);
  first_ok_completed_ns = min_of(first_ok_completed_ns, other.first_ok_completed_ns);
  last_ok_completed_ns = std::max(last_ok_completed_ns, other.last_ok_completed_ns);
  if (other.longest_ok_gap_ns > longest_ok_gap_ns) {
    longest_ok_gap_ns = other.longest_ok_gap_ns;
    longest_ok_gap_end_ns = other.longest_ok_gap_end_ns;
  }
}

void SecondBucket::Compact() {
  latency.Compact();
  ok_latency.Compact();
  dispatch_lag.Compact();
}

void LoadTimeline::RecordOkCompletion(std::int64_t ns_since_start) {
  const std::int64_t t = std::max<std::int64_t>(0, ns_since_start);
  SecondBucket& b = At(t / 1'000'000'000);
  ++b.ok_completed;
  if (b.first_ok_completed_ns < 0 || t < b.first_ok_completed_ns) b.first_ok_completed_ns = t;
  if (b.last_ok_completed_ns >= 0 && t > b.last_ok_completed_ns && t - b.last_ok_completed_ns > b.longest_ok_gap_ns) {
    b.longest_ok_gap_ns = t - b.last_ok_completed_ns;
    b.longest_ok_gap_end_ns = t;
  }
  b.last_ok_completed_ns = std::max(b.last_ok_completed_ns, t);
}

void LoadTimeline::RecordOffered(std::int64_t ns_since_start) {
  const std::int64_t t = std::max<std::int64_t>(0, ns_since_start);
  if (offered_begin_ns_ < 0 || t < offered_begin_ns_) offered_begin_ns_ = t;
  offered_end_ns_ = std::max(offered_end_ns_, t);
}

SecondBucket& LoadTimeline::At(std::int64_t second) {
  if (second < 0) throw std::out_of_range("LoadTimeline::At: negative second " + std::to_string(second));
  const auto index = static_cast<std::size_t>(second);
  if (index >= seconds_.size()) seconds_.resize(index + 1);
  return seconds_[index];
}

void LoadTimeline::Merge(const LoadTimeline& other) {
  if (other.seconds_.size() > seconds_.size()) seconds_.resize(other.seconds_.size());
  for (std::size_t i = 0; i < other.seconds_.size(); ++i) seconds_[i].Merge(other.seconds_[i]);
  if (other.offered_begin_ns_ >= 0) {
    RecordOffered(other.offered_begin_ns_);
    RecordOffered(other.offered_end_ns_);
  }
}

std::size_t WriteLoadTimelineCsv(const LoadTimeline& timeline, std::ostream& out) {
  std::set<CallCode> codes;
  for (const SecondBucket& s : timeline.seconds()) {
    for (const auto& [code, count] : s.failed_by_code) {
      if (count > 0) codes.insert(code);
    }
  }
  out << "unix_ms,second,stage,offered,ok,ok_completed,failed,shed,retries,indeterminate,p50_ms,p90_ms,p99_ms,max_ms,"
         "ok_p99_ms,lag_p50_ms,lag_p99_ms,lag_max_ms";
  for (const CallCode code : codes) out << ",failed_" << internal::CsvField(CallCodeName(code));
  out << '\n';

  using internal::NsToMsText;
  std::size_t rows = 0;
  for (std::size_t i = 0; i < timeline.seconds().size(); ++i) {
    const SecondBucket& s = timeline.seconds()[i];
    const auto second = static_cast<std::int64_t>(i);
    out << timeline.clock().UnixMsOfSecond(second) << ',' << second << ',' << internal::CsvField(s.stage) << ','
        << s.offered << ',' << s.ok << ',' << s.ok_completed << ',' << s.failed << ',' << s.shed << ',' << s.retries << ','
        << s.indeterminate << ',' << NsToMsText(s.latency.ValueAtPercentile(50)) << ','
        << NsToMsText(s.latency.ValueAtPercentile(90)) << ',' << NsToMsText(s.latency.ValueAtPercentile(99))
        << ',' << NsToMsText(s.latency.Max()) << ',' << NsToMsText(s.ok_latency.ValueAtPercentile(99)) << ','
        << NsToMsText(s.dispatch_lag.ValueAtPercentile(50)) << ','
        << NsToMsText(s.dispatch_lag.ValueAtPercentile(99)) << ',' << NsToMsText(s.dispatch_lag.Max());
    for (const CallCode code : codes) {
      const auto it = s.failed_by_code.find(code);
      out << ',' << (it == s.failed_by_code.end() ? std::uint64_t{0} : it->second);
    }
    out << '\n';
    ++rows;
  }
  return rows;
}

}  // namespace aftershock::metrics
