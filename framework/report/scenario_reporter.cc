#include "framework/report/scenario_reporter.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "framework/metrics/load_timeline.h"
#include "framework/metrics/stage_summary.h"

namespace aftershock::report {
namespace {

template <typename Write>
Timeline Render(std::string file_name, Write write) {
  std::ostringstream csv;
  Timeline t;
  t.file_name = std::move(file_name);
  t.rows = write(csv);
  t.csv = std::move(csv).str();
  if (!t.csv.empty() && t.csv.back() != '\n') t.csv += '\n';
  return t;
}

// gates.json: the figures of every gate as numbers, for `aftershock-report compare` and other tools
// (verdict.txt has them only as text). One gate a line, so a diff of two runs reads well.
std::string GatesJson(const scenario::ScenarioOutcome& outcome, const std::string& failures,
                      const std::set<std::string>& expected_red, std::string_view judgement) {
  nlohmann::ordered_json head = nlohmann::ordered_json::object();
  head["verdict"] = failures.empty() ? "PASS" : "FAIL";
  head["judgement"] = std::string(judgement);
  head["expected_red"] = expected_red;
  head["interrupted"] = outcome.interrupted;
  head["aborted"] = outcome.abort.has_value();
  nlohmann::ordered_json reasons = nlohmann::ordered_json::array();
  std::istringstream lines(failures);
  for (std::string line; std::getline(lines, line);) reasons.push_back(line);
  head["failures"] = reasons;
  std::string out = head.dump();
  out.pop_back();  // the closing brace: the gates follow
  out += ",\"gates\":[";
  for (std::size_t i = 0; i < outcome.gates.size(); ++i) {
    const gates::GateResult& g = outcome.gates[i];
    nlohmann::ordered_json j;
    j["name"] = g.name;
    j["result"] = std::string(gates::StatusWord(g));
    j["message"] = g.message;
    nlohmann::ordered_json figures = nlohmann::ordered_json::object();
    for (const auto& [name, value] : g.figures) figures[name] = value;
    j["figures"] = figures;
    // Which way each figure is better, as its gate declared it (gates::FigureDirection); only the
    // declared ones, so a reader never mistakes a default for a declaration.
    if (!g.directions.empty()) {
      nlohmann::ordered_json directions = nlohmann::ordered_json::object();
      for (const auto& [name, value] : g.figures) {
        if (const auto it = g.directions.find(name); it != g.directions.end()) {
          directions[name] = std::string(gates::DirectionName(it->second));
        }
      }
      j["directions"] = directions;
    }
    out += (i ? ",\n" : "\n") + j.dump();
  }
  out += "\n]}\n";
  return out;
}

// A CSV field per RFC 4180: quoted only when it holds a comma, quote, CR or LF.
std::string CsvCell(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// lost-promises.csv: when each broken promise was acknowledged (on the run's clock), which property
// it broke and how, what was expected and observed, and one `attr.<name>` column per attribute name
// any lost promise has (empty where a promise has no such attribute).
std::string LostPromisesCsv(const scenario::ScenarioOutcome& outcome, std::size_t* rows) {
  std::set<std::string> names;
  for (const ledger::Violation& v : outcome.verification->violations) {
    for (const auto& [name, value] : v.attributes) names.insert(name);
  }
  std::string out = "unix_ms,second,property,kind,promise_kind,key,expected,observed,value";
  for (const std::string& name : names) out += ",attr." + name;
  out += "\n";
  const std::int64_t start_ms = outcome.load.timeline.clock().UnixMsOfSecond(0);
  for (const ledger::Violation& v : outcome.verification->violations) {
    char second[32];
    std::snprintf(second, sizeof second, "%.3f", static_cast<double>(v.unix_ms - start_ms) / 1000.0);
    out += std::to_string(v.unix_ms) + "," + second + "," + std::string(ledger::PropertyName(v.property)) + "," +
           CsvCell(std::string(ledger::KindName(v.kind))) + "," + std::string(ledger::PromiseKindName(v.promise_kind)) +
           "," + CsvCell(v.key) + "," + CsvCell(v.expected) + "," + CsvCell(v.observed) + "," + CsvCell(v.value);
    for (const std::string& name : names) out += "," + CsvCell(std::string(v.attributes.Get(name).value_or("")));
    out += "\n";
    ++*rows;
  }
  return out;
}

}  // namespace

std::vector<std::string> NonEmptyLines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (!line.empty()) lines.emplace_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::set<std::string> ExpectedRedOfGatesJson(std::string_view gates_json) {
  std::set<std::string> names;
  const nlohmann::json j = nlohmann::json::parse(gates_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("expected_red") || !j["expected_red"].is_array()) return names;
  for (const auto& name : j["expected_red"]) {
    if (!name.is_string()) return {};
    names.insert(name.get<std::string>());
  }
  return names;
}

std::string_view JudgeRun(const std::set<std::string>& red_gates, const std::vector<std::string>& failure_lines,
                          const std::set<std::string>& expected_red) {
  if (expected_red.empty()) return red_gates.empty() && failure_lines.empty() ? kJudgementPass : kJudgementFail;
  if (red_gates != expected_red) return kJudgementFail;
  for (const std::string& line : failure_lines) {
    const bool of_an_expected_gate = std::any_of(expected_red.begin(), expected_red.end(), [&](const std::string& g) {
      return line.size() >= g.size() + 2 && line.compare(0, g.size() + 2, g + ": ") == 0;
    });
    if (!of_an_expected_gate) return kJudgementFail;
  }
  return kJudgementRedAsExpected;
}

ScenarioReport MakeScenarioReport(const scenario::ScenarioOutcome& outcome, const std::set<std::string>& expected_red) {
  ScenarioReport r;
  r.outcome = &outcome;
  r.timelines.push_back(Render("load-timeline.csv", [&](std::ostream& o) {
    return metrics::WriteLoadTimelineCsv(outcome.load.timeline, o);
  }));
  r.timelines.push_back(Render("chaos-timeline.csv", [&](std::ostream& o) { return outcome.chaos.WriteCsv(o); }));

  const auto summaries = metrics::SummarizeStages(outcome.load.timeline);
  std::ostringstream txt, md, json;
  metrics::WriteStageReport(summaries, txt);
  metrics::WriteStageReportMarkdown(summaries, md);
  metrics::WriteStageReportJson(summaries, json);
  r.stage_report_txt = std::move(txt).str();
  r.stage_report_md = std::move(md).str();
  r.stage_report_json = std::move(json).str();
  r.verdict = gates::FormatGateReport(outcome.gates);

  for (const auto& reason : gates::FailureReasons(outcome.gates)) r.failures += reason + "\n";
  for (const auto& e : outcome.chaos_errors) r.failures += "chaos: " + e + "\n";
  if (!outcome.ledger_error.empty()) r.failures += "ledger file: " + outcome.ledger_error + "\n";
  if (outcome.interrupted) r.failures += "interrupted: the run was stopped early (SIGINT/SIGTERM)\n";
  // A seeded defect that was not caught is the scenario's failure (the fixture's Judge says the same).
  std::set<std::string> red_gates;
  for (const std::string& name : expected_red) {
    const auto g = std::find_if(outcome.gates.begin(), outcome.gates.end(),
                                [&](const gates::GateResult& x) { return x.name == name; });
    if (g == outcome.gates.end()) {
      r.failures += "expected_red names an unknown gate '" + name + "'\n";
    } else if (g->passed) {
      r.failures += "seeded defect NOT caught: gate " + name +
                    (g->not_applicable ? " had nothing to check (N/A): " : " stayed green: ") + g->message + "\n";
    }
  }
  for (const gates::GateResult& g : outcome.gates) {
    if (!g.passed) red_gates.insert(g.name);
  }
  r.all_passed = r.failures.empty();
  r.judgement = std::string(JudgeRun(red_gates, NonEmptyLines(r.failures), expected_red));
  r.gates_json = GatesJson(outcome, r.failures, expected_red, r.judgement);
  if (outcome.verification) r.lost_promises_csv = LostPromisesCsv(outcome, &r.lost_promises);
  return r;
}

ScenarioReport ReportScenario(const std::vector<ScenarioReporter*>& reporters, const ScenarioInfo& info,
                              const scenario::ScenarioOutcome& outcome) {
  ScenarioReport report = MakeScenarioReport(outcome, info.expected_red);
  for (ScenarioReporter* r : reporters) r->OnScenarioStart(info);
  for (ScenarioReporter* r : reporters) r->OnTimelines(info, report);
  for (ScenarioReporter* r : reporters) r->OnVerdict(info, report);
  for (ScenarioReporter* r : reporters) r->OnScenarioEnd(info);
  return report;
}

}  // namespace aftershock::report
