// ScenarioReporter: one sink of a scenario's results (stdout markers, the artifacts folder, JUnit
// properties, the CI step summary, or a user's own), in the style of a Catch2 listener or a Google
// Benchmark reporter: a base class whose every hook does nothing, so a sink overrides only what it
// writes. The suite's main installs the sinks (framework/gtest/reporters.h); the fixture hands every
// run to all of them through ReportScenario(), in this order of hooks:
//
//   OnScenarioStart(info)            the run is over, nothing is written yet
//   OnTimelines(info, report)        the load and chaos timelines, before anything is judged
//   OnVerdict(info, report)          stage reports, every gate (suite gates included), failures
//   OnScenarioEnd(info)
//
// Each hook runs for every sink before the next hook starts, so all timelines are out before any
// verdict. A sink reports its own write errors on stderr and never throws (the others still run).
//
//   class CountingReporter : public report::ScenarioReporter {
//     void OnVerdict(const ScenarioInfo&, const ScenarioReport& r) override { red += !r.all_passed; }
//     int red = 0;
//   };
#ifndef AFTERSHOCK_FRAMEWORK_REPORT_SCENARIO_REPORTER_H_
#define AFTERSHOCK_FRAMEWORK_REPORT_SCENARIO_REPORTER_H_

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "framework/scenario/scenario_outcome.h"

namespace aftershock::report {

// The set name used when a scenario runs outside any set (e.g. from the IDE without --aftershock_set).
inline constexpr std::string_view kAdHocSetName = "adhoc";

struct ScenarioInfo {
  std::string set;            // never empty: kAdHocSetName outside a set
  std::string scenario;       // the manifest's scenario name
  std::string artifacts_dir;  // this scenario's folder: "<artifacts root>/<set>/<scenario>"
  // The gates the scenario declares must turn red: the seeded defect it exists to catch
  // (fixtures::JudgeOptions::expected_red). Empty for an ordinary scenario.
  std::set<std::string> expected_red{};
};

// How a run is judged against what its scenario declared:
inline constexpr std::string_view kJudgementPass = "PASS";  // nothing red, nothing expected red
inline constexpr std::string_view kJudgementFail = "FAIL";  // any other outcome
// Every expected-red gate is red, and nothing else is (no other red gate, no chaos error, no
// interruption): the seeded defect was caught.
inline constexpr std::string_view kJudgementRedAsExpected = "RED-AS-EXPECTED";

// The judgement of a run from its red gates (by name), its failures.txt lines and the scenario's
// expected-red gates: RED-AS-EXPECTED when `expected_red` is not empty, the red gates are exactly
// those, and every failure line is one of theirs ("<gate>: ..."); else PASS when there is no
// failure line and no red gate, and FAIL otherwise. The HTML page, the set index and gates.json use it.
std::string_view JudgeRun(const std::set<std::string>& red_gates, const std::vector<std::string>& failure_lines,
                          const std::set<std::string>& expected_red);

// The non-empty lines of `text` (e.g. a failures.txt: JudgeRun's failure_lines).
std::vector<std::string> NonEmptyLines(std::string_view text);

// The expected-red gate names of a gates.json text (its "expected_red" array); none when the text is
// not a JSON object, has no such array (a file from before it had one) or a name is not a string.
std::set<std::string> ExpectedRedOfGatesJson(std::string_view gates_json);

// One CSV timeline, rendered once for every sink.
struct Timeline {
  std::string file_name;  // e.g. "load-timeline.csv"
  std::string csv;        // header included, ends with a newline
  std::size_t rows = 0;   // data rows
};

// Everything the sinks write, computed once from the outcome (MakeScenarioReport).
struct ScenarioReport {
  const scenario::ScenarioOutcome* outcome = nullptr;  // the figures behind the texts
  std::vector<Timeline> timelines;                     // load-timeline.csv, chaos-timeline.csv
  std::string stage_report_txt;
  std::string stage_report_md;
  std::string stage_report_json;
  std::string verdict;   // gates::FormatGateReport of every gate
  // gates.json: {"verdict":"PASS|FAIL","interrupted":b,"aborted":b,"failures":[...],"gates":[{"name",
  // "result":"PASS|FAIL|N/A","message","figures":{name:value}}]}, one gate a line (docs/formats.md).
  std::string gates_json;
  // lost-promises.csv: every lost or changed promise of the verification, one a row (formats.md);
  // empty when the target makes no promises (no verification ran): then no file is written.
  std::string lost_promises_csv;
  std::size_t lost_promises = 0;  // its data rows
  // failures.txt: one reason a line; empty on a green run. An expected-red gate that stayed green
  // (or N/A, or is no gate of the run) is a reason too: "seeded defect NOT caught: gate <g> stayed
  // green: <message>".
  std::string failures;
  bool all_passed = false;  // failures is empty
  std::string judgement;    // JudgeRun: PASS, FAIL or RED-AS-EXPECTED
};

class ScenarioReporter {
 public:
  virtual ~ScenarioReporter() = default;
  virtual void OnScenarioStart(const ScenarioInfo& /*info*/) {}
  virtual void OnTimelines(const ScenarioInfo& /*info*/, const ScenarioReport& /*report*/) {}
  virtual void OnVerdict(const ScenarioInfo& /*info*/, const ScenarioReport& /*report*/) {}
  virtual void OnScenarioEnd(const ScenarioInfo& /*info*/) {}
};

// The texts of `outcome` (its gates as they are when called: add suite gates before), judged
// against the scenario's expected-red gates.
ScenarioReport MakeScenarioReport(const scenario::ScenarioOutcome& outcome,
                                  const std::set<std::string>& expected_red = {});

// Runs every hook of every sink in the order above (the report judged against
// info.expected_red). Returns the report it handed them.
ScenarioReport ReportScenario(const std::vector<ScenarioReporter*>& reporters, const ScenarioInfo& info,
                              const scenario::ScenarioOutcome& outcome);

}  // namespace aftershock::report

#endif  // AFTERSHOCK_FRAMEWORK_REPORT_SCENARIO_REPORTER_H_
