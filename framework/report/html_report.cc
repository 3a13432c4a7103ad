#include "framework/report/html_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "framework/gates/availability_gates.h"
#include "framework/metrics/stage_summary.h"
#include "framework/report/internal/curve_section.h"
#include "framework/report/svg_plot.h"

namespace aftershock::report {
namespace {

constexpr const char* kCss = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em;color:#222;background:#fff;max-width:1100px}
h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.1em;margin:1.4em 0 .4em;border-bottom:1px solid #ddd}
.banner{padding:.6em 1em;border-radius:4px;margin-bottom:1em}
.banner.pass{background:#e3f4e1;border-left:6px solid #2ca02c}.banner.fail{background:#fbe3e3;border-left:6px solid #d62728}
.banner.expected{background:#e4ecf7;border-left:6px solid #1f77b4}
table{border-collapse:collapse;font-size:.85em;margin:.4em 0}th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr[data-result="FAIL"] td.result,.verdict-FAIL{background:#d62728;color:#fff;font-weight:bold}
tr[data-result="PASS"] td.result,.verdict-PASS{background:#2ca02c;color:#fff}
tr[data-result="N/A"] td.result{background:#999;color:#fff}
tr.gate.caught td.result,.verdict-RED-AS-EXPECTED{background:#1f77b4;color:#fff;font-weight:bold}
tr.gate.not-caught td{background:#fbe3e3;font-weight:bold}tr.gate.not-caught td.result{background:#d62728;color:#fff}
span.expectation{display:block;font-size:.8em;font-weight:normal}ul.caught li{color:#1f4e79}
svg.plot{width:100%;height:auto;display:block;margin:.3em 0 1em}
svg .plot-area{fill:#fcfcfc;stroke:#bbb}svg .grid{stroke:#e4e4e4}svg .tick,svg .legend{font-size:11px;fill:#555}
svg .plot-title{font-size:13px;font-weight:bold;fill:#222}svg .no-data{font-size:16px;fill:#999}
svg .chaos-window{fill:#ff7f0e;fill-opacity:.18;stroke:#ff7f0e;stroke-opacity:.6}
svg .chaos-label{font-size:10px;fill:#a0522d}svg .confirm-span line{stroke:#9467bd;stroke-width:1.5}svg .confirm-span text{font-size:10px;fill:#6a3d9a}svg .chaos-event{stroke:#9467bd;stroke-width:1.5;stroke-dasharray:3 2}
svg polyline.series{fill:none;stroke-width:1.6}
ul.failures li{color:#a11}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em}
)css";

const char* const kPalette[] = {"#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string Fixed(double v, int decimals = 3) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string Shortest(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// A path segment for an href: anything but [A-Za-z0-9._-] percent-encoded.
std::string UrlSegment(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::optional<double> Ms(std::int64_t ns, bool has_data) {
  if (!has_data) return std::nullopt;
  return static_cast<double>(ns) / 1e6;
}

// The fault windows and instants of the chaos timeline, shared by every plot.
struct ChaosMarks {
  std::vector<PlotWindow> windows;
  std::vector<PlotInstant> instants;
  std::vector<PlotSpan> spans;
};

ChaosMarks MarksOf(const scenario::ScenarioOutcome& o, std::int64_t run_end_second) {
  ChaosMarks m;
  for (const chaos::FaultSpan& s : o.chaos.Spans(run_end_second)) {
    m.windows.push_back({.label = s.fault, .begin = s.apply_ms / 1000.0, .end = s.revert_ms / 1000.0});
  }
  for (const chaos::ChaosEvent& e : o.chaos.events()) {
    if (e.event == "apply" || e.event == "revert" || e.event == "action") continue;
    m.instants.push_back({.kind = e.event, .label = e.fault, .title = e.detail, .at = e.seconds});
  }
  // How long each fault took to show its effect (a failover's time), from its apply to the proof.
  for (const chaos::ConfirmationRecord& c : o.confirmations) {
    if (c.revert || c.status != chaos::Confirmation::Status::kConfirmed) continue;
    m.spans.push_back({.label = c.fault + " confirmed after " + Fixed(c.after_seconds, 1) + " s", .fault = c.fault,
                       .begin = c.seconds - c.after_seconds, .end = c.seconds});
  }
  return m;
}

double AxisEnd(const scenario::ScenarioOutcome& o) {
  double end = static_cast<double>(o.load.timeline.size());
  for (const chaos::ChaosEvent& e : o.chaos.events()) end = std::max(end, std::ceil(e.seconds + 0.001));
  return end;
}

Plot BasePlot(std::string id, std::string title, std::string y_label, bool log_y, double x_max, const ChaosMarks& m) {
  Plot p;
  p.id = std::move(id);
  p.title = std::move(title);
  p.y_label = std::move(y_label);
  p.log_y = log_y;
  p.x_max = x_max;
  p.windows = m.windows;
  p.instants = m.instants;
  p.spans = m.spans;
  return p;
}

std::string ThroughputPlot(const scenario::ScenarioOutcome& o, double x_max, const ChaosMarks& m) {
  Plot p = BasePlot("throughput", "calls per second (by intended second)", "calls/s", false, x_max, m);
  const auto& secs = o.load.timeline.seconds();
  std::set<CallCode> codes;
  for (const auto& s : secs) {
    for (const auto& [code, n] : s.failed_by_code) {
      if (n > 0 && code != kCodeShed) codes.insert(code);
    }
  }
  PlotSeries offered{.name = "offered", .color = "#1f77b4", .points = {}, .dashed = true};
  PlotSeries ok{.name = "ok", .color = "#2ca02c", .points = {}, .dashed = false};
  PlotSeries shed{.name = "shed", .color = "#ff7f0e", .points = {}, .dashed = false};
  std::vector<PlotSeries> failed;
  std::size_t color = 0;
  for (CallCode c : codes) {
    failed.push_back({.name = "failed " + CallCodeName(c), .color = kPalette[color++ % std::size(kPalette)],
                      .points = {}, .dashed = false});
  }
  for (std::size_t i = 0; i < secs.size(); ++i) {
    const double x = static_cast<double>(i) + 0.5;
    offered.points.emplace_back(x, static_cast<double>(secs[i].offered));
    ok.points.emplace_back(x, static_cast<double>(secs[i].ok));
    shed.points.emplace_back(x, static_cast<double>(secs[i].shed));
    std::size_t k = 0;
    for (CallCode c : codes) {
      const auto it = secs[i].failed_by_code.find(c);
      failed[k++].points.emplace_back(x, static_cast<double>(it == secs[i].failed_by_code.end() ? 0 : it->second));
    }
  }
  p.series.push_back(std::move(offered));
  p.series.push_back(std::move(ok));
  for (auto& f : failed) p.series.push_back(std::move(f));
  p.series.push_back(std::move(shed));
  return RenderPlot(p);
}

std::string LatencyPlot(const scenario::ScenarioOutcome& o, double x_max, const ChaosMarks& m) {
  Plot p = BasePlot("latency", "latency of completed calls, from the intended send time (log axis)", "ms", true, x_max, m);
  PlotSeries p50{.name = "p50", .color = "#2ca02c", .points = {}, .dashed = false};
  PlotSeries p99{.name = "p99", .color = "#ff7f0e", .points = {}, .dashed = false};
  PlotSeries max{.name = "max", .color = "#d62728", .points = {}, .dashed = true};
  const auto& secs = o.load.timeline.seconds();
  for (std::size_t i = 0; i < secs.size(); ++i) {
    const double x = static_cast<double>(i) + 0.5;
    const auto& h = secs[i].latency;
    const bool has = h.Count() > 0;
    p50.points.emplace_back(x, Ms(h.ValueAtPercentile(50), has));
    p99.points.emplace_back(x, Ms(h.ValueAtPercentile(99), has));
    max.points.emplace_back(x, Ms(h.Max(), has));
  }
  p.series = {std::move(p50), std::move(p99), std::move(max)};
  return RenderPlot(p);
}

std::string LagPlot(const scenario::ScenarioOutcome& o, double x_max, const ChaosMarks& m) {
  Plot p = BasePlot("lag", "dispatch lag: actual minus intended send time", "ms", false, x_max, m);
  PlotSeries p50{.name = "lag p50", .color = "#17becf", .points = {}, .dashed = false};
  PlotSeries p99{.name = "lag p99", .color = "#9467bd", .points = {}, .dashed = false};
  PlotSeries max{.name = "lag max", .color = "#8c564b", .points = {}, .dashed = true};
  const auto& secs = o.load.timeline.seconds();
  for (std::size_t i = 0; i < secs.size(); ++i) {
    const double x = static_cast<double>(i) + 0.5;
    const auto& h = secs[i].dispatch_lag;
    const bool has = h.Count() > 0;
    p50.points.emplace_back(x, Ms(h.ValueAtPercentile(50), has));
    p99.points.emplace_back(x, Ms(h.ValueAtPercentile(99), has));
    max.points.emplace_back(x, Ms(h.Max(), has));
  }
  p.series = {std::move(p50), std::move(p99), std::move(max)};
  return RenderPlot(p);
}

// Lost and changed promises per second of their acknowledgment, one line per property and kind,
// with the fault windows: which fault lost what.
std::string LostPromisesPlot(const scenario::ScenarioOutcome& o, double x_max, const ChaosMarks& m) {
  Plot p = BasePlot("lost-promises", "lost or changed promises, by the second they were acknowledged", "promises",
                    false, x_max, m);
  const std::int64_t start_ms = o.load.timeline.clock().UnixMsOfSecond(0);
  const auto seconds = static_cast<std::size_t>(std::max(1.0, std::ceil(x_max)));
  std::map<std::string, std::vector<double>> per_second;
  // None lost is a finding too: a zero line (with the fault windows), not "no data".
  if (o.verification->violations.empty()) per_second["lost"].resize(seconds, 0);
  for (const ledger::Violation& v : o.verification->violations) {
    const std::string name = std::string(ledger::PropertyName(v.property)) + " " + std::string(ledger::KindName(v.kind));
    auto& counts = per_second[name];
    counts.resize(seconds, 0);
    const double at = static_cast<double>(v.unix_ms - start_ms) / 1000.0;
    const auto i = static_cast<std::size_t>(std::clamp(at, 0.0, static_cast<double>(seconds - 1)));
    counts[i] += 1;
  }
  std::size_t color = 0;
  for (const auto& [name, counts] : per_second) {
    PlotSeries series{.name = name, .color = kPalette[color++ % std::size(kPalette)], .points = {}, .dashed = false};
    for (std::size_t i = 0; i < counts.size(); ++i) series.points.emplace_back(static_cast<double>(i) + 0.5, counts[i]);
    p.series.push_back(std::move(series));
  }
  return RenderPlot(p);
}

// The figure `name` of `g`, or nullopt.
std::optional<double> FigureOf(const gates::GateResult& g, const std::string& name) {
  for (const auto& [n, v] : g.figures) {
    if (n == name) return v;
  }
  return std::nullopt;
}

// The recovery stop-clock: per fault round, the time the service took to recover, read from the
// time-to-recover gate's figures (time_to_recover_ms_round_<n> from the revert, _from_apply_ from
// the apply; -1: did not recover). Its rounds are the chaos timeline's fault spans the gate measured
// (those with a time_to_recover_<fault> figure), in order. On a time-axis plot of ok calls per second
// under the fault windows, each round is a bracket from its revert to its recovery ("round 1 stall:
// recovered 0.3 s after the revert", `<g class="confirm-span" data-fault="...">`), a round that did
// not recover an instant at its revert (`data-event="not-recovered"`); then a table, one `<tr
// class="round" data-round data-fault data-ms data-from-apply-ms>` per round. Nothing without rounds.
std::string RecoveryStopClock(const scenario::ScenarioOutcome& o, double x_max, const ChaosMarks& m) {
  const auto gate = std::find_if(o.gates.begin(), o.gates.end(),
                                 [](const gates::GateResult& g) { return g.name == gates::kTimeToRecover; });
  if (gate == o.gates.end() || gate->not_applicable) return "";
  std::vector<chaos::FaultSpan> rounds;
  for (const chaos::FaultSpan& span : o.chaos.Spans(static_cast<std::int64_t>(o.load.timeline.size()))) {
    if (FigureOf(*gate, "time_to_recover_" + span.fault)) rounds.push_back(span);
  }
  if (rounds.empty() || !FigureOf(*gate, "time_to_recover_ms_round_1")) return "";
  Plot p = BasePlot("recovery", "recovery stop-clock: from each fault round's revert to the recovery (time-to-recover)",
                    "ok/s", false, x_max, ChaosMarks{.windows = m.windows, .instants = {}, .spans = {}});
  PlotSeries ok{.name = "ok", .color = "#2ca02c", .points = {}, .dashed = false};
  const auto& secs = o.load.timeline.seconds();
  for (std::size_t i = 0; i < secs.size(); ++i) ok.points.emplace_back(static_cast<double>(i) + 0.5, static_cast<double>(secs[i].ok));
  p.series.push_back(std::move(ok));
  std::string table = "<table class=\"recovery-stop-clock\">\n<tr><th>round</th><th>fault</th><th>revert (s)</th>"
                      "<th>recovered after the revert</th><th>after the apply</th></tr>\n";
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    const std::optional<double> ms = FigureOf(*gate, "time_to_recover_ms_round_" + n);
    const std::optional<double> apply_ms = FigureOf(*gate, "time_to_recover_from_apply_ms_round_" + n);
    if (!ms) break;  // fewer round figures than spans: show what the gate measured
    const double revert = rounds[i].revert_ms / 1000.0;
    const bool recovered = *ms >= 0;
    const std::string label = "round " + n + " " + rounds[i].fault;
    if (recovered) {
      p.spans.push_back({.label = label + ": recovered " + Fixed(*ms / 1000.0, 1) + " s after the revert",
                         .fault = rounds[i].fault, .begin = revert, .end = revert + *ms / 1000.0});
    } else {
      p.instants.push_back({.kind = "not-recovered", .label = rounds[i].fault, .title = label + ": did not recover",
                            .at = revert});
    }
    const auto text = [](std::optional<double> v) {
      return !v ? std::string("-") : *v < 0 ? std::string("did not recover") : Fixed(*v / 1000.0, 3) + " s";
    };
    table += "<tr class=\"round\" data-round=\"" + n + "\" data-fault=\"" + EscapeHtml(rounds[i].fault) +
             "\" data-ms=\"" + Shortest(*ms) + "\" data-from-apply-ms=\"" + (apply_ms ? Shortest(*apply_ms) : "") +
             "\"><td class=\"num\">" + n + "</td><td>" + EscapeHtml(rounds[i].fault) + "</td><td class=\"num\">" +
             Fixed(revert) + "</td><td class=\"num\">" + text(ms) + "</td><td class=\"num\">" + text(apply_ms) +
             "</td></tr>\n";
  }
  return "<h2>Recovery stop-clock</h2>\n" + RenderPlot(p) + table + "</table>\n";
}

constexpr std::size_t kLostRowsShown = 200;

// "shard=2 node=a" (HTML-escaped).
std::string AttributesText(const ledger::PromiseAttributes& attributes) {
  std::string out;
  for (const auto& [name, value] : attributes) out += (out.empty() ? "" : " ") + EscapeHtml(name) + "=" + EscapeHtml(value);
  return out;
}

std::string LostPromisesTable(const ledger::VerificationReport& v) {
  if (v.violations.empty()) return "<p class=\"lost-promises\">no promise lost or changed</p>\n";
  std::string t = "<table class=\"lost-promises\">\n<tr><th>acknowledged (unix ms)</th><th>property</th><th>kind</th>"
                  "<th>key</th><th>expected</th><th>observed</th><th>attributes</th></tr>\n";
  for (std::size_t i = 0; i < v.violations.size() && i < kLostRowsShown; ++i) {
    const ledger::Violation& x = v.violations[i];
    t += "<tr class=\"lost\"><td class=\"num\">" + std::to_string(x.unix_ms) + "</td><td>" +
         std::string(ledger::PropertyName(x.property)) + "</td><td>" + EscapeHtml(ledger::KindName(x.kind)) + "</td><td>" +
         EscapeHtml(x.key) + "</td><td>" + EscapeHtml(x.expected) + "</td><td>" + EscapeHtml(x.observed) + "</td><td>" +
         AttributesText(x.attributes) + "</td></tr>\n";
  }
  t += "</table>\n";
  if (v.violations.size() > kLostRowsShown) {
    t += "<p>" + std::to_string(v.violations.size() - kLostRowsShown) + " more in lost-promises.csv</p>\n";
  }
  return t;
}

// Per attribute name and value: the promises lost (distinct keys: a promise breaking P2 and P3 counts
// once) against every promise acknowledged with that value (the ledger's counts, not the sample).
// Nothing when no promise has attributes.
std::string LostByAttributeTable(const scenario::ScenarioOutcome& o) {
  ledger::AttributeCounts acknowledged;
  if (o.ledger) acknowledged = o.ledger->AcknowledgedByAttribute();
  std::map<std::string, std::map<std::string, std::set<std::string>>> lost;  // name -> value -> keys
  for (const ledger::Violation& v : o.verification->violations) {
    for (const auto& [name, value] : v.attributes) {
      auto& values = acknowledged[name];
      // A value the ledger counted under "(other)" is lost under "(other)" too.
      const bool own_row = values.count(value) > 0 || values.size() < ledger::kMaxAttributeValues;
      lost[name][own_row ? value : std::string(ledger::kOtherAttributeValue)].insert(v.key);
      values.try_emplace(own_row ? value : std::string(ledger::kOtherAttributeValue), 0);
    }
  }
  if (acknowledged.empty()) return "";
  std::string t = "<table class=\"lost-by-attribute\">\n<caption>lost by attribute</caption>\n<tr><th>attribute</th>"
                  "<th>value</th><th>lost</th><th>acknowledged</th><th>lost %</th></tr>\n";
  for (const auto& [name, values] : acknowledged) {
    for (const auto& [value, total] : values) {
      std::size_t n = 0;
      if (auto a = lost.find(name); a != lost.end()) {
        if (auto b = a->second.find(value); b != a->second.end()) n = b->second.size();
      }
      t += "<tr class=\"attribute\" data-attribute=\"" + EscapeHtml(name) + "\" data-value=\"" + EscapeHtml(value) +
           "\" data-lost=\"" + std::to_string(n) + "\" data-acknowledged=\"" + std::to_string(total) + "\"><td>" +
           EscapeHtml(name) + "</td><td>" + EscapeHtml(value) + "</td><td class=\"num\">" + std::to_string(n) +
           "</td><td class=\"num\">" + std::to_string(total) + "</td><td class=\"num\">" +
           (total > 0 ? Fixed(100.0 * static_cast<double>(n) / static_cast<double>(total), 2) : std::string("-")) +
           "</td></tr>\n";
    }
  }
  return t + "</table>\n";
}

// Red first, then green, then not applicable, the verdict's order within each; with expected-red
// gates (a seeded defect): an expected-red gate that stayed green or N/A first (the real failure:
// `<tr class="gate not-caught">`), then the other red gates, then the expected red ones (`<tr
// class="gate caught">`). data-result stays the gate's own word; data-expected="red" marks the
// expected ones.
std::string GateTable(const std::vector<gates::GateResult>& results, const std::set<std::string>& expected_red) {
  const auto rank = [&](const gates::GateResult& g) {
    const bool expected = expected_red.count(g.name) != 0;
    if (expected) return g.passed ? 0 : 2;
    return !g.passed ? 1 : (g.not_applicable ? 4 : 3);
  };
  std::vector<const gates::GateResult*> rows;
  for (int pass = 0; pass < 5; ++pass) {
    for (const auto& g : results) {
      if (rank(g) == pass) rows.push_back(&g);
    }
  }
  std::string o = "<table class=\"gates\">\n<tr><th>result</th><th>gate</th><th>figure and budget</th><th>figures</th></tr>\n";
  for (const gates::GateResult* g : rows) {
    const std::string word(gates::StatusWord(*g));
    const bool expected = expected_red.count(g->name) != 0;
    std::string cls = "gate", note;
    if (expected && !g->passed) {
      cls += " caught";
      note = "<span class=\"expectation\">red as expected: the seeded defect was caught</span>";
    } else if (expected) {
      cls += " not-caught";
      note = "<span class=\"expectation\">expected red: the seeded defect was NOT caught</span>";
    }
    o += "<tr class=\"" + cls + "\" data-result=\"" + word + "\" data-gate=\"" + EscapeHtml(g->name) + "\"" +
         (expected ? " data-expected=\"red\"" : "") + "><td class=\"result\">" + word + note + "</td><td>" +
         EscapeHtml(g->name) + "</td><td>" + EscapeHtml(g->message) + "</td><td>";
    for (std::size_t i = 0; i < g->figures.size(); ++i) {
      o += (i ? "<br>" : "") + std::string("<code>") + EscapeHtml(g->figures[i].first) + " = " +
           Shortest(g->figures[i].second) + "</code>";
    }
    o += "</td></tr>\n";
  }
  if (rows.empty()) o += "<tr><td colspan=\"4\" class=\"no-data\">no gate was evaluated</td></tr>\n";
  return o + "</table>\n";
}

std::string StageTable(const metrics::LoadTimeline& timeline) {
  const auto summaries = metrics::SummarizeStages(timeline);
  std::string o =
      "<table class=\"stages\">\n<tr><th>stage</th><th>requests</th><th>ok</th><th>failed</th><th>shed</th>"
      "<th>seconds</th><th>rate/s</th><th>throughput/s</th><th>success</th><th>p50 ms</th><th>p90 ms</th>"
      "<th>p99 ms</th><th>max ms</th><th>failures by code</th></tr>\n";
  for (const auto& s : summaries) {
    o += "<tr data-stage=\"" + EscapeHtml(s.stage) + "\"><td>" + EscapeHtml(s.stage) + "</td><td class=\"num\">" +
         std::to_string(s.requests) + "</td><td class=\"num\">" + std::to_string(s.ok) + "</td><td class=\"num\">" +
         std::to_string(s.failed) + "</td><td class=\"num\">" + std::to_string(s.shed) + "</td><td class=\"num\">" +
         Fixed(s.duration_seconds, 0) + "</td><td class=\"num\">" + Fixed(s.rate, 1) + "</td><td class=\"num\">" +
         Fixed(s.throughput, 1) + "</td><td class=\"num\">" + Fixed(100.0 * s.success_ratio, 2) + " %</td>";
    for (double v : {s.p50_ms, s.p90_ms, s.p99_ms, s.max_ms}) o += "<td class=\"num\">" + Fixed(v) + "</td>";
    o += "<td>";
    for (const auto& [code, n] : s.failures_by_code) o += EscapeHtml(CallCodeName(code)) + " " + std::to_string(n) + " ";
    o += "</td></tr>\n";
  }
  return o + "</table>\n";
}

std::string ChaosTable(const scenario::ScenarioOutcome& o) {
  const auto events = o.chaos.events();
  if (events.empty()) return "<p class=\"no-data\">no chaos event (no fault in this scenario)</p>\n";
  std::string t = "<table class=\"chaos-events\">\n<tr><th>second</th><th>event</th><th>fault</th><th>detail</th></tr>\n";
  for (const auto& e : events) {
    t += "<tr data-event=\"" + EscapeHtml(e.event) + "\"><td class=\"num\">" + Fixed(e.seconds) + "</td><td>" +
         EscapeHtml(e.event) + "</td><td>" + EscapeHtml(e.fault) + "</td><td>" + EscapeHtml(e.detail) + "</td></tr>\n";
  }
  return t + "</table>\n";
}

std::string ConfirmationTable(const scenario::ScenarioOutcome& o) {
  if (o.confirmations.empty()) return "";
  std::string t = "<table class=\"confirmations\">\n<tr><th>fault</th><th>round</th><th>of</th><th>second</th>"
                  "<th>after (s)</th><th>detail</th></tr>\n";
  for (const auto& c : o.confirmations) {
    t += "<tr><td>" + EscapeHtml(c.fault) + "</td><td class=\"num\">" + std::to_string(c.round) + "</td><td>" +
         (c.revert ? "revert" : "apply") + "</td><td class=\"num\">" + Fixed(c.seconds) + "</td><td class=\"num\">" +
         Fixed(c.after_seconds, 1) + "</td><td>" + EscapeHtml(c.detail) + "</td></tr>\n";
  }
  return t + "</table>\n";
}

// "a, b" (HTML-escaped).
std::string NameList(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + EscapeHtml(n);
  return out;
}

// The judgement the page shows: the report's, or from all_passed for a report made by hand.
std::string JudgementOf(const ScenarioReport& report) {
  if (!report.judgement.empty()) return report.judgement;
  return std::string(report.all_passed ? kJudgementPass : kJudgementFail);
}

// "RED AS EXPECTED" for RED-AS-EXPECTED, the word itself otherwise.
std::string JudgementText(const std::string& judgement) {
  return judgement == kJudgementRedAsExpected ? "RED AS EXPECTED" : judgement;
}

std::string WhySection(const ScenarioInfo& info, const ScenarioReport& report) {
  std::string o;
  const scenario::ScenarioOutcome* out = report.outcome;
  const bool caught = JudgementOf(report) == kJudgementRedAsExpected;
  if (caught) {
    o += "<p class=\"expected-red\"><b>Red as expected:</b> the scenario seeds a defect that must turn " +
         NameList(info.expected_red) + " red, and it did: the defect was caught, and nothing else is red.</p>\n";
  } else if (!info.expected_red.empty()) {
    o += "<p class=\"expected-red\">The scenario seeds a defect that must turn " + NameList(info.expected_red) +
         " red (and nothing else).</p>\n";
  }
  if (out != nullptr && out->interrupted) {
    o += "<p class=\"interrupted\"><b>Interrupted:</b> the run was stopped early (SIGINT/SIGTERM); faults were "
         "reverted and the timelines below end where it stopped.</p>\n";
  }
  if (out != nullptr && out->abort) {
    const auto& a = *out->abort;
    o += "<p class=\"aborted\"><b>Aborted by the safety watch:</b> " + EscapeHtml(a.condition) + ": " +
         EscapeHtml(a.reason) + " (breach at " + Fixed(a.breach_seconds) + " s, load stopped " +
         Fixed(a.stop_latency_seconds) + " s later)</p>\n";
  }
  if (!report.failures.empty()) {
    // A caught defect's red gates are what the scenario wanted: listed, not as failures.
    o += caught ? "<ul class=\"caught\">\n" : "<ul class=\"failures\">\n";
    std::size_t start = 0;
    while (start < report.failures.size()) {
      std::size_t end = report.failures.find('\n', start);
      if (end == std::string::npos) end = report.failures.size();
      o += "<li>" + EscapeHtml(report.failures.substr(start, end - start)) + "</li>\n";
      start = end + 1;
    }
    o += "</ul>\n";
  }
  return o;
}

std::string Page(const std::string& title, const std::string& verdict, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + EscapeHtml(title) +
         "</title>\n<style>" + kCss + "</style>\n</head>\n<body data-verdict=\"" + verdict + "\">\n" + body +
         "</body>\n</html>\n";
}

}  // namespace

std::string RenderHtmlReport(const ScenarioInfo& info, const ScenarioReport& report) {
  const std::string verdict = JudgementOf(report);
  const std::string banner = verdict == kJudgementPass ? "pass" : verdict == kJudgementFail ? "fail" : "expected";
  const scenario::ScenarioOutcome* o = report.outcome;
  int red = 0;
  if (o != nullptr) {
    for (const auto& g : o->gates) red += g.passed ? 0 : 1;
  }
  std::string b = "<div class=\"banner " + banner + "\">\n<h1>" + EscapeHtml(info.set) + " / " +
                  EscapeHtml(info.scenario) + "</h1>\n<p><span class=\"verdict-" + verdict + "\">&nbsp;" +
                  JudgementText(verdict) + "&nbsp;</span> " +
                  (o != nullptr ? std::to_string(red) + " of " + std::to_string(o->gates.size()) + " gates red" : "") +
                  "</p>\n" + WhySection(info, report) + "</div>\n";
  if (o == nullptr) {
    b += "<p class=\"no-data\">no outcome: only the texts of the run are known</p>\n<h2>Verdict</h2>\n<pre>" +
         EscapeHtml(report.verdict) + "</pre>\n";
    return Page(info.set + " / " + info.scenario + ": " + JudgementText(verdict), verdict, b);
  }
  const auto& h = o->load.health;
  b += "<p class=\"health\">offered " + Fixed(h.offered_rate, 1) + "/s, achieved " + Fixed(h.achieved_rate, 1) +
       "/s, dispatch lag p99 " + Fixed(h.lag_p99_ms) + " ms, ledger " +
       std::to_string(o->ledger ? o->ledger->acknowledged() : 0) + " promises acknowledged" +
       (h.generator_limited ? ", <b>generator-limited</b>: " + EscapeHtml(h.reason) : std::string()) + "</p>\n";

  const double x_max = AxisEnd(*o);
  const ChaosMarks marks = MarksOf(*o, o->load.timeline.size());
  b += "<h2>Timeline</h2>\n" + ThroughputPlot(*o, x_max, marks) + LatencyPlot(*o, x_max, marks) +
       LagPlot(*o, x_max, marks);
  if (o->verification) {
    b += "<h2>Lost or changed promises (" + std::to_string(o->verification->violations.size()) + ")</h2>\n" +
         LostPromisesPlot(*o, x_max, marks) + LostByAttributeTable(*o) + LostPromisesTable(*o->verification);
  }
  b += RecoveryStopClock(*o, x_max, marks);
  b += internal::CurvesSection(o->curves);
  b += "<h2>Gates</h2>\n" + GateTable(o->gates, info.expected_red);
  b += "<h2>Stage report</h2>\n" + StageTable(o->load.timeline);
  b += "<h2>Chaos timeline</h2>\n" + ChaosTable(*o) + ConfirmationTable(*o);
  if (!o->abort_notes.empty()) {
    b += "<h2>Safety watch notes</h2>\n<ul class=\"abort-notes\">\n";
    for (const auto& n : o->abort_notes) b += "<li>" + EscapeHtml(n) + "</li>\n";
    b += "</ul>\n";
  }
  b += "<p class=\"files\">Files beside this page: load-timeline.csv, chaos-timeline.csv, stage-report.*, "
       "gates.json, lost-promises.csv, verdict.txt, failures.txt, ledger.tsv (docs/formats.md).</p>\n";
  return Page(info.set + " / " + info.scenario + ": " + JudgementText(verdict), verdict, b);
}

std::string RenderSetIndex(const std::string& set, const std::vector<IndexEntry>& entries) {
  int red = 0, as_expected = 0;
  for (const auto& e : entries) {
    as_expected += e.verdict == kJudgementRedAsExpected ? 1 : 0;
    red += e.verdict == kJudgementPass || e.verdict == kJudgementRedAsExpected ? 0 : 1;
  }
  const std::string verdict = red == 0 ? "PASS" : "FAIL";
  std::string b = "<div class=\"banner " + std::string(red == 0 ? "pass" : "fail") + "\">\n<h1>set " +
                  EscapeHtml(set) + "</h1>\n<p>" + std::to_string(entries.size()) + " scenario(s), " +
                  std::to_string(red) + " not green" +
                  (as_expected > 0 ? ", " + std::to_string(as_expected) + " red as expected (a seeded defect caught)"
                                   : std::string()) +
                  "</p>\n</div>\n";
  b += "<table class=\"scenarios\">\n<tr><th>result</th><th>scenario</th><th>red gates</th></tr>\n";
  for (const auto& e : entries) {
    b += "<tr class=\"scenario\" data-result=\"" + EscapeHtml(e.verdict) + "\"><td class=\"verdict-" +
         EscapeHtml(e.verdict) + "\">" + EscapeHtml(JudgementText(e.verdict)) + "</td><td><a href=\"" +
         UrlSegment(e.scenario) + "/report.html\">" + EscapeHtml(e.scenario) + "</a></td><td class=\"num\">" +
         std::to_string(e.red) + "</td></tr>\n";
  }
  if (entries.empty()) b += "<tr><td colspan=\"3\" class=\"no-data\">no scenario report yet</td></tr>\n";
  b += "</table>\n";
  return Page("set " + set + ": " + verdict, verdict, b);
}

}  // namespace aftershock::report
