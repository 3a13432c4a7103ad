// The HTML run report: one scenario's outcome as one self-contained page (inline SVG and CSS, no
// script, no font or URL from the network), and the per-set index that links them. Pure functions;
// the sink that writes them is html_reporter.h. What the page shows (docs/report.md):
//
//   - the verdict (PASS, FAIL, or RED AS EXPECTED for a scenario that seeds a defect: its
//     expected-red gates red and nothing else, ScenarioInfo::expected_red) and every reason the run
//     is red: failed gates, chaos errors, an interruption, a safety abort (condition, breach, how
//     long load went on), an expected-red gate that stayed green ("seeded defect NOT caught");
//   - plots on one time axis (run seconds), each with every fault window shaded and labelled and each
//     fault's confirmation marked: per-second offered / ok / failed by code / shed ("throughput"),
//     p50 / p99 / max latency on a log axis ("latency"), dispatch lag p50 / p99 / max ("lag"), and
//     on each the time a fault took to confirm its effect (the failover time);
//   - the recovery stop-clock when the time-to-recover gate timed fault rounds (`data-plot="recovery"`:
//     per round a bracket from the revert to the recovery, and a table of the rounds);
//   - a suite's own curves (ScenarioOutcome::curves, e.g. the breakpoint's goodput against offered
//     rate: `data-plot="curve-<name>"` and `<table class="curve" data-curve="<name>">`);
//   - the gate table, red first (FAIL, then PASS, then N/A; with expected-red gates: one that stayed
//     green first, then the other red ones, then the expected red ones), with each gate's message
//     (figure and budget) and figures; the stage report; the chaos timeline; the fault confirmations.
//
// Only figures already in the outcome are shown. DOM hooks for tests and tools: `<body
// data-verdict="PASS|FAIL|RED-AS-EXPECTED">`, `<svg class="plot" data-plot="throughput|latency|lag">`,
// `<rect class="chaos-window" data-fault="...">` (svg_plot.h), `<table class="gates">` with one `<tr
// class="gate" data-result="FAIL|PASS|N/A" data-gate="...">` per gate (`class="gate caught"` and
// `class="gate not-caught"`, both with data-expected="red", for expected-red gates that turned red
// and that did not), `<table class="stages">`, `<ul class="failures">` (`<ul class="caught">` when
// red as expected).
//
//   std::string html = RenderHtmlReport(info, MakeScenarioReport(outcome));
//   std::string index = RenderSetIndex("pr", {{.scenario = "primary-kill", .verdict = "FAIL", .red = 2}});
#ifndef AFTERSHOCK_FRAMEWORK_REPORT_HTML_REPORT_H_
#define AFTERSHOCK_FRAMEWORK_REPORT_HTML_REPORT_H_

#include <string>
#include <vector>

#include "framework/report/scenario_reporter.h"

namespace aftershock::report {

// The page of one scenario. `report.outcome` may be null (then only the texts are shown).
std::string RenderHtmlReport(const ScenarioInfo& info, const ScenarioReport& report);

// One line of a set's index page.
struct IndexEntry {
  std::string scenario;  // the folder name; links to "<scenario>/report.html"
  // "PASS", "FAIL", "RED-AS-EXPECTED" (scenario_reporter.h's JudgeRun), or "?" when the folder has
  // no verdict.txt
  std::string verdict;
  int red = 0;           // FAIL lines in verdict.txt
};

// The index of a set: one row per entry, in the given order, red ones marked, a caught seeded
// defect as "RED AS EXPECTED" (`<tr class="scenario" data-result="RED-AS-EXPECTED">`); the set is
// green when every entry is PASS or RED-AS-EXPECTED.
std::string RenderSetIndex(const std::string& set, const std::vector<IndexEntry>& entries);

}  // namespace aftershock::report

#endif  // AFTERSHOCK_FRAMEWORK_REPORT_HTML_REPORT_H_
