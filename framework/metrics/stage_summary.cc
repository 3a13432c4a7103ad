#include "framework/metrics/stage_summary.h"

#include <cstddef>
#include <iomanip>
#include <sstream>

#include "framework/metrics/internal/format.h"

namespace aftershock::metrics {
namespace {

using internal::FormatFixed;

// Running totals for one stage, turned into a StageSummary at the end.
struct Accumulator {
  std::string stage;
  std::uint64_t seconds = 0;
  SecondBucket sum;
};

double NsToMs(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

StageSummary Finish(const Accumulator& acc) {
  const SecondBucket& b = acc.sum;
  StageSummary s;
  s.stage = acc.stage;
  s.requests = b.offered;
  s.ok = b.ok;
  s.failed = b.failed + b.shed;
  s.shed = b.shed;
  s.duration_seconds = static_cast<double>(acc.seconds);
  if (acc.seconds > 0) {
    s.rate = static_cast<double>(s.requests) / s.duration_seconds;
    s.throughput = static_cast<double>(s.ok) / s.duration_seconds;
  }
  if (s.requests > 0) s.success_ratio = static_cast<double>(s.ok) / static_cast<double>(s.requests);
  s.latency_min_ms = NsToMs(b.latency.Min());
  s.mean_ms = b.latency.Mean() / 1e6;
  s.p50_ms = NsToMs(b.latency.ValueAtPercentile(50));
  s.p90_ms = NsToMs(b.latency.ValueAtPercentile(90));
  s.p95_ms = NsToMs(b.latency.ValueAtPercentile(95));
  s.p99_ms = NsToMs(b.latency.ValueAtPercentile(99));
  s.max_ms = NsToMs(b.latency.Max());
  for (const auto& [code, count] : b.failed_by_code) {
    if (count > 0) s.failures_by_code[code] = count;
  }
  return s;
}

std::string Ms(double ms) { return FormatFixed(ms, 3) + "ms"; }

std::string CodeCounts(const std::map<CallCode, std::uint64_t>& codes, const char* separator) {
  std::string out;
  for (const auto& [code, count] : codes) {
    if (!out.empty()) out += separator;
    out += CallCodeName(code) + ":" + std::to_string(count);
  }
  return out;
}

void Line(std::ostream& out, const char* label, const char* fields, const std::string& values) {
  std::ostringstream line;
  line << std::left << std::setw(14) << label << std::setw(34) << fields << values;
  std::string text = line.str();
  while (!text.empty() && text.back() == ' ') text.pop_back();  // no trailing blanks when values is empty
  out << text << '\n';
}

std::string MarkdownCell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

}  // namespace

std::vector<StageSummary> SummarizeStages(const LoadTimeline& timeline) {
  std::vector<Accumulator> stages;
  Accumulator total{.stage = "total", .seconds = static_cast<std::uint64_t>(timeline.size()), .sum = {}};
  for (const SecondBucket& second : timeline.seconds()) {
    total.sum.Merge(second);
    if (second.stage.empty()) continue;
    Accumulator* acc = nullptr;
    for (Accumulator& candidate : stages) {
      if (candidate.stage == second.stage) acc = &candidate;
    }
    if (acc == nullptr) acc = &stages.emplace_back(Accumulator{.stage = second.stage, .seconds = 0, .sum = {}});
    ++acc->seconds;
    acc->sum.Merge(second);
  }
  std::vector<StageSummary> result;
  result.reserve(stages.size() + 1);
  for (const Accumulator& acc : stages) result.push_back(Finish(acc));
  result.push_back(Finish(total));
  return result;
}

void WriteStageReport(const std::vector<StageSummary>& summaries, std::ostream& out) {
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    const StageSummary& s = summaries[i];
    if (i > 0) out << '\n';
    Line(out, "Stage", "[name]", s.stage);
    Line(out, "Requests", "[total, rate, throughput]",
         std::to_string(s.requests) + ", " + FormatFixed(s.rate, 2) + ", " + FormatFixed(s.throughput, 2));
    Line(out, "Duration", "[total]", internal::ShortestDouble(s.duration_seconds) + "s");
    Line(out, "Latencies", "[min, mean, 50, 90, 95, 99, max]",
         Ms(s.latency_min_ms) + ", " + Ms(s.mean_ms) + ", " + Ms(s.p50_ms) + ", " + Ms(s.p90_ms) + ", " +
             Ms(s.p95_ms) + ", " + Ms(s.p99_ms) + ", " + Ms(s.max_ms));
    Line(out, "Success", "[ratio, ok]", FormatFixed(s.success_ratio * 100, 2) + "%, " + std::to_string(s.ok));
    Line(out, "Failures", "[total, shed]", std::to_string(s.failed) + ", " + std::to_string(s.shed));
    Line(out, "Failure Codes", "[code:count]", CodeCounts(s.failures_by_code, "  "));
  }
}

void WriteStageReportMarkdown(const std::vector<StageSummary>& summaries, std::ostream& out) {
  out << "| stage | requests | ok | failed | shed | duration_s | rate | throughput | success | min_ms | mean_ms "
         "| p50_ms | p90_ms | p95_ms | p99_ms | max_ms | failures |\n";
  out << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const StageSummary& s : summaries) {
    const std::string codes = CodeCounts(s.failures_by_code, " ");
    out << "| " << MarkdownCell(s.stage) << " | " << s.requests << " | " << s.ok << " | " << s.failed << " | "
        << s.shed << " | " << internal::ShortestDouble(s.duration_seconds) << " | " << FormatFixed(s.rate, 2)
        << " | " << FormatFixed(s.throughput, 2) << " | " << FormatFixed(s.success_ratio * 100, 2) << "% | "
        << FormatFixed(s.latency_min_ms, 3) << " | " << FormatFixed(s.mean_ms, 3) << " | "
        << FormatFixed(s.p50_ms, 3) << " | " << FormatFixed(s.p90_ms, 3) << " | " << FormatFixed(s.p95_ms, 3)
        << " | " << FormatFixed(s.p99_ms, 3) << " | " << FormatFixed(s.max_ms, 3) << " | "
        << (codes.empty() ? "-" : codes) << " |\n";
  }
}

void WriteStageReportJson(const std::vector<StageSummary>& summaries, std::ostream& out) {
  using internal::JsonQuoted;
  using internal::ShortestDouble;
  out << "[\n";
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    const StageSummary& s = summaries[i];
    out << "  {\"stage\":" << JsonQuoted(s.stage) << ",\"requests\":" << s.requests << ",\"ok\":" << s.ok
        << ",\"failed\":" << s.failed << ",\"shed\":" << s.shed
        << ",\"duration_seconds\":" << ShortestDouble(s.duration_seconds) << ",\"rate\":" << ShortestDouble(s.rate)
        << ",\"throughput\":" << ShortestDouble(s.throughput)
        << ",\"success_ratio\":" << ShortestDouble(s.success_ratio)
        << ",\"latency_min_ms\":" << ShortestDouble(s.latency_min_ms) << ",\"mean_ms\":" << ShortestDouble(s.mean_ms)
        << ",\"p50_ms\":" << ShortestDouble(s.p50_ms) << ",\"p90_ms\":" << ShortestDouble(s.p90_ms)
        << ",\"p95_ms\":" << ShortestDouble(s.p95_ms) << ",\"p99_ms\":" << ShortestDouble(s.p99_ms)
        << ",\"max_ms\":" << ShortestDouble(s.max_ms) << ",\"failures_by_code\":{";
    bool first = true;
    for (const auto& [code, count] : s.failures_by_code) {
      out << (first ? "" : ",") << JsonQuoted(CallCodeName(code)) << ':' << count;
      first = false;
    }
    out << "}}" << (i + 1 < summaries.size() ? "," : "") << '\n';
  }
  out << "]\n";
}

}  // namespace aftershock::metrics
