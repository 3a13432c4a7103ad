#include "framework/metrics/timeline_file.h"

#include <charconv>
#include <cstdio>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

namespace aftershock::metrics {
namespace {

// Format (one record a line, fields separated by one space):
//   aftershock-load-timeline 2
//   worker <k> <n> <start_unix_ms>
//   offered-window <begin_ns> <end_ns>
//   second <i> <stage> <offered> <ok> <ok_completed> <failed> <shed> <retries> <indeterminate>
//          <generator_failed> <first_ok_of_intended_ns> <first_ok_completed_ns> <last_ok_completed_ns>
//          <longest_ok_gap_ns> <longest_ok_gap_end_ns> <first_attempt_failed>           (one line)
//   codes <i> <code>:<count> ...                  (only when the second has failures by code)
//   hist <i> <latency|ok_latency|dispatch_lag> <min> <max> <sum> <bucket>:<count> ...   (non-empty only)
//   end <seconds>
// The stage is percent-encoded (every byte outside [A-Za-z0-9._-]); "-" alone is the empty stage.
constexpr std::string_view kMagic = "aftershock-load-timeline 2";

std::string EncodeStage(const std::string& stage) {
  if (stage.empty()) return "-";
  std::string out;
  for (const unsigned char c : stage) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '_' || (c == '-' && stage.size() > 1);
    if (plain) {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

void WriteHistogram(std::ostream& out, std::size_t second, const char* name, const LatencyHistogram& h) {
  if (h.empty()) return;
  const LatencyHistogram::Buckets b = h.ToBuckets();
  char sum[40];
  std::snprintf(sum, sizeof sum, "%.17g", b.sum);
  out << "hist " << second << ' ' << name << ' ' << b.min << ' ' << b.max << ' ' << sum;
  for (const auto& [bucket, count] : b.counts) out << ' ' << bucket << ':' << count;
  out << '\n';
}

class Reader {
 public:
  Reader(std::istream& in, const std::string& name) : in_(in), name_(name) {}

  bool NextLine() {
    if (!std::getline(in_, line_)) return false;
    ++line_number_;
    fields_.clear();
    std::size_t pos = 0;
    while (pos <= line_.size()) {
      const std::size_t space = line_.find(' ', pos);
      const std::size_t end = space == std::string::npos ? line_.size() : space;
      fields_.push_back(std::string_view(line_).substr(pos, end - pos));
      if (space == std::string::npos) break;
      pos = space + 1;
    }
    return true;
  }
  const std::string& line() const { return line_; }
  const std::vector<std::string_view>& fields() const { return fields_; }

  [[noreturn]] void Fail(const std::string& what) const {
    throw TimelineFileError(name_ + ":" + std::to_string(line_number_) + ": " + what);
  }
  [[noreturn]] void FailAtEnd(const std::string& what) const {
    throw TimelineFileError(name_ + ": " + what);
  }

  template <typename T>
  T Number(std::size_t index, const char* what) const {
    if (index >= fields_.size()) Fail(std::string("missing ") + what);
    T value{};
    const std::string_view f = fields_[index];
    const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), value);
    if (f.empty() || ec != std::errc() || ptr != f.data() + f.size()) {
      Fail(std::string(what) + " '" + std::string(f) + "' is not a number");
    }
    return value;
  }

  double Double(std::size_t index, const char* what) const {
    if (index >= fields_.size()) Fail(std::string("missing ") + what);
    const std::string text(fields_[index]);
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (text.empty() || used != text.size()) Fail(std::string(what) + " '" + text + "' is not a number");
    return value;
  }

  std::pair<std::int64_t, std::uint64_t> Pair(std::size_t index, const char* what) const {
    const std::string_view f = fields_[index];
    const std::size_t colon = f.find(':');
    if (colon == std::string_view::npos) Fail(std::string(what) + " '" + std::string(f) + "' is not <key>:<count>");
    std::int64_t key = 0;
    std::uint64_t count = 0;
    const auto k = std::from_chars(f.data(), f.data() + colon, key);
    const auto c = std::from_chars(f.data() + colon + 1, f.data() + f.size(), count);
    if (colon == 0 || k.ec != std::errc() || k.ptr != f.data() + colon || c.ec != std::errc() ||
        c.ptr != f.data() + f.size() || colon + 1 == f.size()) {
      Fail(std::string(what) + " '" + std::string(f) + "' is not <key>:<count>");
    }
    return {key, count};
  }

  std::string Stage(std::size_t index) const {
    const std::string_view f = fields_[index];
    if (f == "-") return "";
    std::string out;
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (f[i] != '%') {
        out.push_back(f[i]);
        continue;
      }
      unsigned value = 0;
      if (i + 2 >= f.size() || std::from_chars(f.data() + i + 1, f.data() + i + 3, value, 16).ptr != f.data() + i + 3) {
        Fail("stage '" + std::string(f) + "' has a bad %-escape");
      }
      out.push_back(static_cast<char>(value));
      i += 2;
    }
    return out;
  }

 private:
  std::istream& in_;
  const std::string& name_;
  std::string line_;
  std::vector<std::string_view> fields_;
  int line_number_ = 0;
};

}  // namespace

void WriteTimelineFile(const LoadTimeline& timeline, TimelineFileHeader header, std::ostream& out) {
  header.start_unix_ms = timeline.clock().start_unix_ms();
  out << kMagic << '\n'
      << "worker " << header.worker << ' ' << header.workers << ' ' << header.start_unix_ms << '\n'
      << "offered-window " << timeline.offered_begin_ns() << ' ' << timeline.offered_end_ns() << '\n';
  const auto& seconds = timeline.seconds();
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    const SecondBucket& b = seconds[i];
    out << "second " << i << ' ' << EncodeStage(b.stage) << ' ' << b.offered << ' ' << b.ok << ' ' << b.ok_completed
        << ' ' << b.failed << ' ' << b.shed << ' ' << b.retries << ' ' << b.indeterminate << ' ' << b.generator_failed
        << ' ' << b.first_ok_of_intended_ns << ' ' << b.first_ok_completed_ns << ' ' << b.last_ok_completed_ns << ' '
        << b.longest_ok_gap_ns << ' ' << b.longest_ok_gap_end_ns << ' ' << b.first_attempt_failed << '\n';
    if (!b.failed_by_code.empty()) {
      out << "codes " << i;
      for (const auto& [code, count] : b.failed_by_code) out << ' ' << code << ':' << count;
      out << '\n';
    }
    WriteHistogram(out, i, "latency", b.latency);
    WriteHistogram(out, i, "ok_latency", b.ok_latency);
    WriteHistogram(out, i, "dispatch_lag", b.dispatch_lag);
  }
  out << "end " << seconds.size() << '\n';
  out.flush();
}

TimelineFile ReadTimelineFile(std::istream& in, const std::string& name) {
  Reader r(in, name);
  if (!r.NextLine()) r.FailAtEnd("empty: not a timeline file (the worker may have died before writing)");
  if (r.line() != kMagic) r.Fail("not a timeline file: expected '" + std::string(kMagic) + "'");
  if (!r.NextLine() || r.fields().size() != 4 || r.fields()[0] != "worker") {
    r.Fail("expected 'worker <k> <n> <start_unix_ms>'");
  }
  TimelineFile file;
  file.header.worker = r.Number<int>(1, "worker");
  file.header.workers = r.Number<int>(2, "workers");
  file.header.start_unix_ms = r.Number<std::int64_t>(3, "start_unix_ms");
  if (file.header.workers < 1 || file.header.worker < 0 || file.header.worker >= file.header.workers) {
    r.Fail("worker " + std::to_string(file.header.worker) + " of " + std::to_string(file.header.workers) +
           " is not a worker index");
  }
  file.timeline = LoadTimeline(RunClock(Clock::time_point{}, file.header.start_unix_ms));
  LoadTimeline& t = file.timeline;
  if (!r.NextLine() || r.fields().size() != 3 || r.fields()[0] != "offered-window") {
    r.Fail("expected 'offered-window <begin_ns> <end_ns>'");
  }
  const auto begin = r.Number<std::int64_t>(1, "offered window begin");
  const auto end = r.Number<std::int64_t>(2, "offered window end");
  if (begin >= 0) {
    t.RecordOffered(begin);
    t.RecordOffered(end);
  }
  std::int64_t expected_second = 0;
  while (r.NextLine()) {
    const auto& f = r.fields();
    if (f[0] == "end") {
      if (f.size() != 2) r.Fail("expected 'end <seconds>'");
      if (r.Number<std::int64_t>(1, "seconds") != expected_second) {
        r.Fail("end says " + std::string(f[1]) + " seconds, the file has " + std::to_string(expected_second));
      }
      if (r.NextLine()) r.Fail("text after the end line");
      return file;
    }
    if (f[0] == "second") {
      if (f.size() != 17) r.Fail("a second line has 17 fields, this one " + std::to_string(f.size()));
      const auto i = r.Number<std::int64_t>(1, "second");
      if (i != expected_second) r.Fail("second " + std::to_string(i) + " where " + std::to_string(expected_second) + " was due");
      SecondBucket& b = t.At(i);
      b.stage = r.Stage(2);
      b.offered = r.Number<std::uint64_t>(3, "offered");
      b.ok = r.Number<std::uint64_t>(4, "ok");
      b.ok_completed = r.Number<std::uint64_t>(5, "ok_completed");
      b.failed = r.Number<std::uint64_t>(6, "failed");
      b.shed = r.Number<std::uint64_t>(7, "shed");
      b.retries = r.Number<std::uint64_t>(8, "retries");
      b.indeterminate = r.Number<std::uint64_t>(9, "indeterminate");
      b.generator_failed = r.Number<std::uint64_t>(10, "generator_failed");
      b.first_ok_of_intended_ns = r.Number<std::int64_t>(11, "first_ok_of_intended_ns");
      b.first_ok_completed_ns = r.Number<std::int64_t>(12, "first_ok_completed_ns");
      b.last_ok_completed_ns = r.Number<std::int64_t>(13, "last_ok_completed_ns");
      b.longest_ok_gap_ns = r.Number<std::int64_t>(14, "longest_ok_gap_ns");
      b.longest_ok_gap_end_ns = r.Number<std::int64_t>(15, "longest_ok_gap_end_ns");
      b.first_attempt_failed = r.Number<std::uint64_t>(16, "first_attempt_failed");
      ++expected_second;
      continue;
    }
    // codes and hist lines belong to the last second line.
    if (f.size() < 2) r.Fail("unknown record '" + std::string(f[0]) + "'");
    const auto i = r.Number<std::int64_t>(1, "second");
    if (i != expected_second - 1) r.Fail("record for second " + std::to_string(i) + " outside its second");
    SecondBucket& b = t.At(i);
    if (f[0] == "codes") {
      for (std::size_t k = 2; k < f.size(); ++k) {
        const auto [code, count] = r.Pair(k, "code");
        b.failed_by_code[static_cast<CallCode>(code)] += count;
      }
      continue;
    }
    if (f[0] == "hist") {
      if (f.size() < 7) r.Fail("a hist line has a name, min, max, sum and at least one bucket");
      LatencyHistogram* h = f[2] == "latency"        ? &b.latency
                            : f[2] == "ok_latency"   ? &b.ok_latency
                            : f[2] == "dispatch_lag" ? &b.dispatch_lag
                                                     : nullptr;
      if (h == nullptr) r.Fail("unknown histogram '" + std::string(f[2]) + "'");
      LatencyHistogram::Buckets buckets;
      buckets.min = r.Number<std::int64_t>(3, "min");
      buckets.max = r.Number<std::int64_t>(4, "max");
      buckets.sum = r.Double(5, "sum");
      for (std::size_t k = 6; k < f.size(); ++k) {
        const auto [bucket, count] = r.Pair(k, "bucket");
        buckets.counts.emplace_back(static_cast<int>(bucket), count);
      }
      try {
        *h = LatencyHistogram::FromBuckets(buckets);
      } catch (const std::invalid_argument& e) {
        r.Fail(e.what());
      }
      continue;
    }
    r.Fail("unknown record '" + std::string(f[0]) + "'");
  }
  r.FailAtEnd("no end line after " + std::to_string(expected_second) +
              " seconds: the file is truncated (its worker died or was killed before finishing)");
}

}  // namespace aftershock::metrics
