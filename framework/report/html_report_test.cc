// Output tests of the HTML run report (html_report.h, svg_plot.h) and its sink (html_reporter.h):
// the exact elements a test or a browser check counts (one plot of each kind, one chaos window per
// fault span and plot, one gate row per gate with the red ones first), escaping of names, "no data"
// for an empty timeline, the interrupted and aborted notices, and the files the sink writes.
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "framework/process/scratch_dir.h"
#include "framework/report/artifacts_reporter.h"
#include "framework/report/html_report.h"
#include "framework/report/html_reporter.h"
#include "framework/report/scenario_reporter.h"
#include "framework/report/svg_plot.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::size_t Count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Ten seconds of load with latencies, a stall fault from second 3 to 6 (confirmed at 3.5), a kill
// (an action) at second 8; one green gate, one red gate, one not applicable.
scenario::ScenarioOutcome Outcome(const std::string& fault = "stall") {
  scenario::ScenarioOutcome o;
  const RunClock clock = RunClock::StartNow();
  o.load.timeline = metrics::LoadTimeline(clock);
  for (int s = 0; s < 10; ++s) {
    auto& b = o.load.timeline.At(s);
    b.offered = 100;
    b.ok = s >= 3 && s < 6 ? 40 : 100;
    b.failed = 100 - b.ok;
    if (b.failed > 0) b.failed_by_code[14] = b.failed;
    for (int i = 0; i < 5; ++i) b.latency.Record((1 + i) * 1'000'000 * (s >= 3 && s < 6 ? 100 : 1));
    b.dispatch_lag.Record(50'000);
  }
  o.chaos = chaos::ChaosTimeline(clock);
  o.chaos.Record(clock.start() + std::chrono::seconds(3), "apply", fault, "2000 ms");
  o.chaos.Record(clock.start() + std::chrono::milliseconds(3500), "confirmed", fault, "stalled after 0.5 s");
  o.chaos.Record(clock.start() + std::chrono::seconds(6), "revert", fault);
  o.chaos.Record(clock.start() + std::chrono::seconds(8), "action", "kill-replica", "killed r1");
  o.confirmations = {{.fault = fault, .round = 1, .revert = false, .status = chaos::Confirmation::Status::kConfirmed,
                      .detail = "stalled after 0.5 s", .seconds = 3.5, .after_seconds = 0.5},
                     {.fault = "kill-replica", .round = 1, .revert = false,
                      .status = chaos::Confirmation::Status::kNotConfirmed, .detail = "no", .seconds = 9,
                      .after_seconds = 1}};
  o.gates = {{.name = "p1-longest-outage", .passed = true, .message = "0 s (budget 5 s)",
              .figures = {{"longest_outage_seconds", 0}, {"max_outage_seconds", 5}}},
             gates::NotApplicable("alert-fired", "no alert rule"),
             {.name = "p3-reverse-lookup", .passed = false, .message = "2 lost of 10 checked",
              .figures = {{"promises_lost", 2}}}};
  return o;
}

const ScenarioInfo kInfo{.set = "pr", .scenario = "probe", .artifacts_dir = ""};

TEST(HtmlReport, HasOnePlotOfEachKindAndEveryFaultWindowOnEach) {
  const auto outcome = Outcome();
  const std::string html = RenderHtmlReport(kInfo, MakeScenarioReport(outcome));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(Count(html, "<svg class=\"plot\""), 3u);
  EXPECT_EQ(Count(html, "data-plot=\"throughput\""), 1u);
  EXPECT_EQ(Count(html, "data-plot=\"latency\""), 1u);
  EXPECT_EQ(Count(html, "data-plot=\"lag\""), 1u);
  // Two spans (the stall, the kill), on each of the three plots; the confirmation marked on each.
  EXPECT_EQ(Count(html, "class=\"chaos-window\""), 6u);
  EXPECT_EQ(Count(html, "class=\"chaos-window\" data-fault=\"stall\""), 3u);
  EXPECT_EQ(Count(html, "class=\"chaos-window\" data-fault=\"kill-replica\""), 3u);
  EXPECT_EQ(Count(html, "class=\"chaos-event\" data-event=\"confirmed\" data-fault=\"stall\""), 3u);
  // The time the stall took to show, from its confirmation record, on each plot.
  EXPECT_EQ(Count(html, "<g class=\"confirm-span\" data-fault=\"stall\">"), 3u);
  EXPECT_THAT(html, HasSubstr(">stall confirmed after 0.5 s</text>"));
  // The series of the throughput plot: offered, ok, the one failing code, shed.
  EXPECT_EQ(Count(html, "data-series=\"failed UNAVAILABLE\""), 1u);
  EXPECT_EQ(Count(html, "data-series=\"offered\""), 1u);
  EXPECT_EQ(Count(html, "no data"), 0u);
  // Self-contained: no script, nothing fetched.
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("http")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
}

TEST(HtmlReport, ASuitesCurveIsPlottedOnItsOwnAxisWithItsMarksAndListedPointByPoint) {
  auto outcome = Outcome();
  outcome.curves.push_back({.name = "breakpoint-goodput",
                            .title = "goodput against offered rate (breakpoint steps)",
                            .x_label = "offered calls/s",
                            .y_label = "goodput calls/s",
                            .points = {{100, 99.5}, {200, 198}, {300, 171.25}},
                            .identity_line = true,
                            .x_marks = {{200, "last step held"}, {300, "first step failed"}}});
  const std::string html = RenderHtmlReport(kInfo, MakeScenarioReport(outcome));
  EXPECT_EQ(Count(html, "<svg class=\"plot\""), 4u);  // the three timelines and the curve
  EXPECT_EQ(Count(html, "data-plot=\"curve-breakpoint-goodput\""), 1u);
  EXPECT_THAT(html, HasSubstr("<h2>goodput against offered rate (breakpoint steps)</h2>"));
  EXPECT_EQ(Count(html, "data-series=\"goodput calls/s\""), 1u);
  EXPECT_EQ(Count(html, "data-series=\"y = x\""), 1u);
  EXPECT_EQ(Count(html, "data-event=\"mark\" data-fault=\"last step held\""), 1u);
  EXPECT_EQ(Count(html, "data-event=\"mark\" data-fault=\"first step failed\""), 1u);
  EXPECT_THAT(html, HasSubstr("<p class=\"curve-marks\">last step held at 200; first step failed at 300</p>"));
  EXPECT_THAT(html, HasSubstr("<table class=\"curve\" data-curve=\"breakpoint-goodput\">"));
  EXPECT_EQ(Count(html, "<tr class=\"point\">"), 3u);
  EXPECT_THAT(html, HasSubstr("<tr class=\"point\"><td class=\"num\">300</td><td class=\"num\">171.25</td></tr>"));
  // No curve, no section.
  EXPECT_EQ(Count(RenderHtmlReport(kInfo, MakeScenarioReport(Outcome())), "class=\"curve\""), 0u);
}

TEST(HtmlReport, ListsTheRedGateFirstThenGreenThenNotApplicable) {
  const auto outcome = Outcome();
  const std::string html = RenderHtmlReport(kInfo, MakeScenarioReport(outcome));
  EXPECT_EQ(Count(html, "<table class=\"gates\">"), 1u);
  EXPECT_EQ(Count(html, "<tr class=\"gate\""), 3u);
  EXPECT_EQ(Count(html, "<tr class=\"gate\" data-result=\"FAIL\""), 1u);
  const auto fail = html.find("data-result=\"FAIL\" data-gate=\"p3-reverse-lookup\"");
  const auto pass = html.find("data-result=\"PASS\" data-gate=\"p1-longest-outage\"");
  const auto na = html.find("data-result=\"N/A\" data-gate=\"alert-fired\"");
  ASSERT_NE(fail, std::string::npos);
  ASSERT_NE(pass, std::string::npos);
  ASSERT_NE(na, std::string::npos);
  EXPECT_LT(fail, pass);
  EXPECT_LT(pass, na);
  EXPECT_THAT(html, HasSubstr("<body data-verdict=\"FAIL\">"));
  EXPECT_THAT(html, HasSubstr("<li>p3-reverse-lookup: 2 lost of 10 checked</li>"));
  EXPECT_THAT(html, HasSubstr("<code>max_outage_seconds = 5</code>"));
  EXPECT_THAT(html, HasSubstr("1 of 3 gates red"));
}

TEST(HtmlReport, AGreenRunSaysPass) {
  auto outcome = Outcome();
  outcome.gates.pop_back();
  const std::string html = RenderHtmlReport(kInfo, MakeScenarioReport(outcome));
  EXPECT_THAT(html, HasSubstr("<body data-verdict=\"PASS\">"));
  EXPECT_EQ(Count(html, "<tr class=\"gate\" data-result=\"FAIL\""), 0u);
  EXPECT_EQ(Count(html, "<tr class=\"gate\" data-result=\"PASS\""), 1u);
  EXPECT_EQ(Count(html, "<ul class=\"failures\">"), 0u);
}

TEST(HtmlReport, EscapesScenarioAndFaultNames) {
  const auto outcome = Outcome("f<&\"x");
  const ScenarioInfo info{.set = "s&t", .scenario = "a<b&\"c", .artifacts_dir = ""};
  const std::string html = RenderHtmlReport(info, MakeScenarioReport(outcome));
  EXPECT_THAT(html, HasSubstr("<h1>s&amp;t / a&lt;b&amp;&quot;c</h1>"));
  EXPECT_THAT(html, HasSubstr("<title>s&amp;t / a&lt;b&amp;&quot;c: FAIL</title>"));
  EXPECT_EQ(Count(html, "class=\"chaos-window\" data-fault=\"f&lt;&amp;&quot;x\""), 3u);
  EXPECT_THAT(html, Not(HasSubstr("a<b")));
  EXPECT_THAT(html, Not(HasSubstr("f<&")));
  EXPECT_THAT(html, Not(HasSubstr("\"x\"")));  // the quote did not end an attribute early
}

TEST(HtmlReport, AnEmptyTimelineRendersNoDataOnEveryPlot) {
  const scenario::ScenarioOutcome empty;
  const std::string html = RenderHtmlReport(kInfo, MakeScenarioReport(empty));
  EXPECT_EQ(Count(html, "<svg class=\"plot\""), 3u);
  EXPECT_EQ(Count(html, "<text class=\"no-data\""), 3u);
  EXPECT_EQ(Count(html, "class=\"chaos-window\""), 0u);
  EXPECT_THAT(html, HasSubstr("no gate was evaluated"));
  EXPECT_THAT(html, HasSubstr("no chaos event"));
}

TEST(HtmlReport, SaysWhenTheRunWasInterruptedOrAborted) {
  auto outcome = Outcome();
  outcome.gates.pop_back();  // no red gate: the interruption alone turns it red
  outcome.interrupted = true;
  std::string html = RenderHtmlReport(kInfo, MakeScenarioReport(outcome));
  EXPECT_THAT(html, HasSubstr("<body data-verdict=\"FAIL\">"));
  EXPECT_THAT(html, HasSubstr("<p class=\"interrupted\"><b>Interrupted:</b>"));
  EXPECT_THAT(html, HasSubstr("<li>interrupted: the run was stopped early (SIGINT/SIGTERM)</li>"));

  outcome.interrupted = false;
  outcome.abort = scenario::AbortRecord{.condition = "error-rate", .reason = "5xx > 50 % <for 2 s>",
                                        .breach_seconds = 4.25, .breach_unix_ms = 0, .stop_seen_seconds = 4.3,
                                        .last_request_seconds = 4.5, .stop_latency_seconds = 0.25};
  html = RenderHtmlReport(kInfo, MakeScenarioReport(outcome));
  EXPECT_THAT(html, HasSubstr("<b>Aborted by the safety watch:</b> error-rate: 5xx &gt; 50 % &lt;for 2 s&gt; "
                              "(breach at 4.250 s, load stopped 0.250 s later)"));
}

TEST(HtmlReport, LatencyOnALogAxisSkipsSecondsWithoutCalls) {
  auto outcome = Outcome();
  outcome.load.timeline.At(12);  // two seconds without a call at the end
  const std::string html = RenderHtmlReport(kInfo, MakeScenarioReport(outcome));
  const auto begin = html.find("data-plot=\"latency\"");
  const auto end = html.find("</svg>", begin);
  const std::string latency = html.substr(begin, end - begin);
  // Decades from 1 ms to 1000 ms (the stall's 100-500 ms), one polyline per series: no zero drawn.
  EXPECT_THAT(latency, HasSubstr(">1</text>"));
  EXPECT_THAT(latency, HasSubstr(">1000</text>"));
  EXPECT_EQ(Count(latency, "<polyline class=\"series\" data-series=\"p99\""), 1u);
  EXPECT_EQ(Count(latency, "<polyline"), 3u);
}

TEST(HtmlReport, PlotsAndListsEveryLostPromiseAndTheArtifactHasThemAll) {
  auto outcome = Outcome();
  const std::int64_t start = outcome.load.timeline.clock().UnixMsOfSecond(0);
  ledger::VerificationReport v;
  v.violations = {{.key = "k<1>", .expected = "v1", .observed = "", .value = "v1", .unix_ms = start + 4200,
                   .property = ledger::Violation::Property::kP3ReverseLookup, .kind = ledger::Violation::Kind::kNotFound,
                   .promise_kind = ledger::PromiseKind::kWritten, .attributes = {{"shard", "1"}}},
                  {.key = "k2", .expected = "v2", .observed = "", .value = "v2", .unix_ms = start + 4700,
                   .property = ledger::Violation::Property::kP3ReverseLookup, .kind = ledger::Violation::Kind::kNotFound,
                   .promise_kind = ledger::PromiseKind::kWritten, .attributes = {{"shard", "2"}, {"node", "a,b"}}},
                  {.key = "k3", .expected = "a,b", .observed = "c\"d", .value = "a,b", .unix_ms = start + 5100,
                   .property = ledger::Violation::Property::kP2Stability, .kind = ledger::Violation::Kind::kChanged,
                   .promise_kind = ledger::PromiseKind::kIssued}};
  outcome.verification = v;
  const ScenarioReport r = MakeScenarioReport(outcome);
  EXPECT_EQ(r.lost_promises, 3u);
  EXPECT_EQ(r.lost_promises_csv,
            "unix_ms,second,property,kind,promise_kind,key,expected,observed,value,attr.node,attr.shard\n" +
                std::to_string(start + 4200) + ",4.200,P3,NotFound,written,k<1>,v1,,v1,,1\n" +
                std::to_string(start + 4700) + ",4.700,P3,NotFound,written,k2,v2,,v2,\"a,b\",2\n" +
                std::to_string(start + 5100) + ",5.100,P2,changed,issued,k3,\"a,b\",\"c\"\"d\",\"a,b\",,\n");
  const std::string html = RenderHtmlReport(kInfo, r);
  EXPECT_EQ(Count(html, "<svg class=\"plot\""), 4u);
  EXPECT_EQ(Count(html, "data-plot=\"lost-promises\""), 1u);
  // Both faults shaded on the lost-promises plot too.
  EXPECT_EQ(Count(html, "class=\"chaos-window\""), 8u);
  EXPECT_EQ(Count(html, "data-series=\"P3 NotFound\""), 1u);
  EXPECT_EQ(Count(html, "data-series=\"P2 changed\""), 1u);
  EXPECT_EQ(Count(html, "<tr class=\"lost\">"), 3u);
  EXPECT_THAT(html, HasSubstr("<h2>Lost or changed promises (3)</h2>"));
  EXPECT_THAT(html, HasSubstr("<td>k&lt;1&gt;</td>"));
  EXPECT_THAT(html, HasSubstr("<td>node=a,b shard=2</td>"));
  // Without a ledger there are no acknowledged counts: the lost values still get a row each.
  EXPECT_THAT(html, HasSubstr("data-attribute=\"shard\" data-value=\"1\" data-lost=\"1\" data-acknowledged=\"0\""));

  // With the ledger's counts: per value lost / acknowledged, values without a loss too.
  auto counted = Outcome();
  counted.verification = v;
  counted.ledger = std::make_unique<ledger::PromiseLedger>();
  for (int i = 0; i < 10; ++i) {
    counted.ledger->RecordAcknowledged({"a" + std::to_string(i), "v", start, ledger::PromiseKind::kWritten,
                                        {{"shard", std::to_string(i % 3)}}});
  }
  const std::string by_attribute = RenderHtmlReport(kInfo, MakeScenarioReport(counted));
  EXPECT_EQ(Count(by_attribute, "<table class=\"lost-by-attribute\">"), 1u);
  EXPECT_THAT(by_attribute, HasSubstr("data-attribute=\"shard\" data-value=\"0\" data-lost=\"0\" data-acknowledged=\"4\""));
  EXPECT_THAT(by_attribute, HasSubstr("data-attribute=\"shard\" data-value=\"1\" data-lost=\"1\" data-acknowledged=\"3\""));
  EXPECT_THAT(by_attribute, HasSubstr("data-attribute=\"shard\" data-value=\"2\" data-lost=\"1\" data-acknowledged=\"3\""));
  EXPECT_THAT(by_attribute, HasSubstr("data-attribute=\"node\" data-value=\"a,b\" data-lost=\"1\" data-acknowledged=\"0\""));

  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-html-test");
  ArtifactsReporter files;
  ReportScenario({&files}, {.set = "pr", .scenario = "lossy", .artifacts_dir = tmp.path()}, outcome);
  EXPECT_EQ(Slurp(std::filesystem::path(tmp.path()) / "lost-promises.csv"), r.lost_promises_csv);
  // No verification (the target makes no promises): no file, no section.
  const process::ScratchDir tmp2 = process::ScratchDir::Create("aftershock-html-test");
  const auto no_promises = Outcome();
  ReportScenario({&files}, {.set = "pr", .scenario = "none", .artifacts_dir = tmp2.path()}, no_promises);
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(tmp2.path()) / "lost-promises.csv"));
  EXPECT_THAT(RenderHtmlReport(kInfo, MakeScenarioReport(no_promises)), Not(HasSubstr("Lost or changed")));
  // Verified and none lost: a zero line under the fault windows, not "no data".
  auto kept = Outcome();
  kept.verification = ledger::VerificationReport{};
  const std::string none_lost = RenderHtmlReport(kInfo, MakeScenarioReport(kept));
  EXPECT_EQ(Count(none_lost, "class=\"chaos-window\""), 8u);
  EXPECT_EQ(Count(none_lost, "data-series=\"lost\""), 1u);
  EXPECT_EQ(Count(none_lost, "no data"), 0u);
  EXPECT_THAT(none_lost, HasSubstr("no promise lost or changed"));
}

TEST(HtmlReport, TheRecoveryStopClockTimesEveryFaultRound) {
  auto outcome = Outcome();  // the stall from 3 s to 6 s, the kill (an action) at 8 s
  outcome.gates.push_back({.name = "time-to-recover", .passed = false, .message = "stall 0.3 s after the revert, ...",
                           .figures = {{"time_to_recover_stall", 1},
                                       {"time_to_recover_kill-replica", -1},
                                       {"time_to_recover_ms_round_1", 300},
                                       {"time_to_recover_ms_round_2", -1},
                                       {"time_to_recover_ms_min", 300},
                                       {"time_to_recover_ms_max", -1},
                                       {"time_to_recover_from_apply_ms_round_1", 3300},
                                       {"time_to_recover_from_apply_ms_round_2", -1}}});
  const std::string html = RenderHtmlReport(kInfo, MakeScenarioReport(outcome));
  EXPECT_EQ(Count(html, "<svg class=\"plot\""), 4u);
  EXPECT_THAT(html, HasSubstr("<h2>Recovery stop-clock</h2>"));
  const auto begin = html.find("data-plot=\"recovery\"");
  ASSERT_NE(begin, std::string::npos);
  const std::string plot = html.substr(begin, html.find("</svg>", begin) - begin);
  // Both fault windows; the stall's round a bracket from its revert (6 s) to 6.3 s; the kill's a mark.
  EXPECT_EQ(Count(plot, "class=\"chaos-window\""), 2u);
  EXPECT_EQ(Count(plot, "<g class=\"confirm-span\" data-fault=\"stall\">"), 1u);
  EXPECT_THAT(plot, HasSubstr(">round 1 stall: recovered 0.3 s after the revert</text>"));
  EXPECT_EQ(Count(plot, "class=\"chaos-event\" data-event=\"not-recovered\" data-fault=\"kill-replica\""), 1u);
  EXPECT_THAT(plot, Not(HasSubstr("confirmed after")));  // the confirmations are the other plots'
  EXPECT_THAT(html, HasSubstr("<tr class=\"round\" data-round=\"1\" data-fault=\"stall\" data-ms=\"300\" "
                              "data-from-apply-ms=\"3300\"><td class=\"num\">1</td><td>stall</td><td "
                              "class=\"num\">6.000</td><td class=\"num\">0.300 s</td><td class=\"num\">3.300 s</td></tr>"));
  EXPECT_THAT(html, HasSubstr("<tr class=\"round\" data-round=\"2\" data-fault=\"kill-replica\" data-ms=\"-1\" "
                              "data-from-apply-ms=\"-1\"><td class=\"num\">2</td><td>kill-replica</td><td "
                              "class=\"num\">8.000</td><td class=\"num\">did not recover</td>"));

  // No fault round (the gate N/A), or no time-to-recover gate: no stop-clock.
  auto no_rounds = Outcome();
  no_rounds.gates.push_back(gates::NotApplicable("time-to-recover", "no fault round to recover from"));
  EXPECT_THAT(RenderHtmlReport(kInfo, MakeScenarioReport(no_rounds)), Not(HasSubstr("Recovery stop-clock")));
  EXPECT_THAT(RenderHtmlReport(kInfo, MakeScenarioReport(Outcome())), Not(HasSubstr("data-plot=\"recovery\"")));
}

TEST(SvgPlot, BreaksALineAtAMissingPoint) {
  Plot p{.id = "x", .title = "t", .y_label = "ms", .log_y = false, .x_max = 4, .x_label = "run second",
         .series = {}, .windows = {}, .instants = {}, .spans = {}};
  p.series.push_back({.name = "a", .color = "#000", .points = {{0.5, 1.0}, {1.5, 2.0}, {2.5, std::nullopt}, {3.5, 1.0}},
                      .dashed = false});
  const std::string svg = RenderPlot(p);
  EXPECT_EQ(Count(svg, "<polyline class=\"series\" data-series=\"a\""), 2u);
  EXPECT_EQ(Count(svg, "no data"), 0u);
}

TEST(HtmlReporter, WritesTheReportAndAnIndexOfTheSet) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-html-test");
  const std::filesystem::path root = tmp.path();
  ArtifactsReporter files;
  HtmlReporter html;
  auto red = Outcome();
  auto green = Outcome();
  green.gates.pop_back();
  ReportScenario({&files, &html}, {.set = "pr", .scenario = "red-one", .artifacts_dir = (root / "pr/red-one").string()}, red);
  // The sinks in the other order: the index still knows this scenario's verdict.
  ReportScenario({&html, &files}, {.set = "pr", .scenario = "green-one", .artifacts_dir = (root / "pr/green-one").string()},
                 green);
  // A folder without a report.html is not listed.
  std::filesystem::create_directories(root / "pr/no-report");

  const std::string page = Slurp(root / "pr/red-one/report.html");
  EXPECT_EQ(page, RenderHtmlReport({.set = "pr", .scenario = "red-one", .artifacts_dir = ""}, MakeScenarioReport(red)));
  EXPECT_TRUE(std::filesystem::exists(root / "pr/green-one/report.html"));
  const std::string index = Slurp(root / "pr/index.html");
  EXPECT_EQ(index, RenderSetIndex("pr", {{.scenario = "green-one", .verdict = "PASS", .red = 0},
                                         {.scenario = "red-one", .verdict = "FAIL", .red = 1}}));
  EXPECT_EQ(Count(index, "<tr class=\"scenario\""), 2u);
  EXPECT_THAT(index, HasSubstr("<a href=\"red-one/report.html\">red-one</a>"));
  EXPECT_THAT(index, Not(HasSubstr("no-report")));
  // No temporary file is left beside them.
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    EXPECT_THAT(e.path().string(), Not(HasSubstr(".tmp"))) << e.path();
  }
}

TEST(HtmlReporter, ScenariosFinishingTogetherAreAllOnTheIndex) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-html-test");
  const auto outcome = Outcome();
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      HtmlReporter html;
      const std::string name = "s" + std::to_string(i);
      html.OnVerdict({.set = "pr", .scenario = name, .artifacts_dir = tmp.path() + "/pr/" + name},
                     MakeScenarioReport(outcome));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(Count(Slurp(std::filesystem::path(tmp.path()) / "pr/index.html"), "<tr class=\"scenario\""), 8u);
}

TEST(HtmlReporter, ScanSetFolderReadsVerdictAndFailures) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-html-test");
  const std::filesystem::path root = tmp.path();
  auto write = [](const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  };
  write(root / "a/report.html", "x");
  write(root / "a/verdict.txt", "PASS g: ok\n");
  write(root / "a/failures.txt", "interrupted: the run was stopped early (SIGINT/SIGTERM)\n");
  write(root / "b/report.html", "x");
  write(root / "b/verdict.txt", "FAIL g: red\nFAIL h: red\nPASS i: ok\n");
  write(root / "c/report.html", "x");
  write(root / "d/report.html", "x");
  write(root / "d/verdict.txt", "PASS g: ok\n");
  write(root / "d/failures.txt", "");
  const auto entries = ScanSetFolder(root.string());
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].verdict, "FAIL");  // green gates, but interrupted
  EXPECT_EQ(entries[1].verdict, "FAIL");
  EXPECT_EQ(entries[1].red, 2);
  EXPECT_EQ(entries[2].verdict, "?");
  EXPECT_EQ(entries[3].verdict, "PASS");
}

TEST(GatesJson, HoldsEveryGateWithItsFiguresAsNumbers) {
  auto outcome = Outcome();
  outcome.gates[0].message = "say \"hi\"";
  const ScenarioReport r = MakeScenarioReport(outcome);
  EXPECT_EQ(r.gates_json,
            "{\"verdict\":\"FAIL\",\"judgement\":\"FAIL\",\"expected_red\":[],\"interrupted\":false,\"aborted\":false,"
            "\"failures\":[\"p3-reverse-lookup: 2 lost of 10 checked\"],\"gates\":[\n"
            "{\"name\":\"p1-longest-outage\",\"result\":\"PASS\",\"message\":\"say \\\"hi\\\"\","
            "\"figures\":{\"longest_outage_seconds\":0.0,\"max_outage_seconds\":5.0}},\n"
            "{\"name\":\"alert-fired\",\"result\":\"N/A\",\"message\":\"no alert rule\",\"figures\":{}},\n"
            "{\"name\":\"p3-reverse-lookup\",\"result\":\"FAIL\",\"message\":\"2 lost of 10 checked\","
            "\"figures\":{\"promises_lost\":2.0}}\n]}\n");
  // A scenario that expects p3 red: the same facts, judged red as expected.
  EXPECT_THAT(MakeScenarioReport(outcome, {"p3-reverse-lookup"}).gates_json,
              HasSubstr("{\"verdict\":\"FAIL\",\"judgement\":\"RED-AS-EXPECTED\",\"expected_red\":[\"p3-reverse-lookup\"],"));
}

// ---- Expected-red gates (a seeded defect the scenario exists to catch) ----

// The probe outcome with p3 green instead of red.
scenario::ScenarioOutcome DefectNotCaught() {
  auto o = Outcome();
  o.gates.back() = {.name = "p3-reverse-lookup", .passed = true, .message = "0 lost of 10 checked",
                    .figures = {{"promises_lost", 0}}};
  return o;
}

const ScenarioInfo kExpectsP3{.set = "verdict", .scenario = "lost-writes", .artifacts_dir = "",
                              .expected_red = {"p3-reverse-lookup"}};

TEST(JudgeRun, RedAsExpectedOnlyWhenExactlyTheExpectedGatesAreRedAndNothingElse) {
  const std::set<std::string> p3 = {"p3-reverse-lookup"};
  const std::vector<std::string> p3_line = {"p3-reverse-lookup: 2 lost"};
  EXPECT_EQ(JudgeRun({}, {}, {}), "PASS");
  EXPECT_EQ(JudgeRun(p3, p3_line, {}), "FAIL");
  EXPECT_EQ(JudgeRun({}, {"interrupted: the run was stopped early"}, {}), "FAIL");
  EXPECT_EQ(JudgeRun(p3, p3_line, p3), "RED-AS-EXPECTED");
  // Not caught, caught together with another red gate or another reason, only one of two caught.
  EXPECT_EQ(JudgeRun({}, {"seeded defect NOT caught: gate p3-reverse-lookup stayed green: 0 lost"}, p3), "FAIL");
  EXPECT_EQ(JudgeRun({}, {}, p3), "FAIL");
  EXPECT_EQ(JudgeRun({"p3-reverse-lookup", "p1-longest-outage"}, {"p3-reverse-lookup: 2 lost", "p1-longest-outage: 9 s"},
                     p3),
            "FAIL");
  EXPECT_EQ(JudgeRun(p3, {"p3-reverse-lookup: 2 lost", "chaos: revert failed"}, p3), "FAIL");
  EXPECT_EQ(JudgeRun(p3, p3_line, {"p3-reverse-lookup", "p2-promise-stability"}), "FAIL");
  // A reason that merely starts with the gate's name is not the gate's.
  EXPECT_EQ(JudgeRun(p3, {"p3-reverse-lookup-extra: x"}, p3), "FAIL");
}

TEST(NonEmptyLines, SkipsEmptyLinesAndKeepsALastLineWithoutANewline) {
  EXPECT_EQ(NonEmptyLines(""), std::vector<std::string>{});
  EXPECT_EQ(NonEmptyLines("a\n\nb: x\n"), (std::vector<std::string>{"a", "b: x"}));
  EXPECT_EQ(NonEmptyLines("\na\nb"), (std::vector<std::string>{"a", "b"}));
}

TEST(ExpectedRedOfGatesJson, ReadsTheArrayAndNothingFromAFileWithoutOne) {
  EXPECT_EQ(ExpectedRedOfGatesJson(R"({"verdict":"FAIL","expected_red":["p3-reverse-lookup","x"],"gates":[]})"),
            (std::set<std::string>{"p3-reverse-lookup", "x"}));
  EXPECT_TRUE(ExpectedRedOfGatesJson(R"({"verdict":"PASS","gates":[]})").empty());  // from before it had one
  EXPECT_TRUE(ExpectedRedOfGatesJson("not json").empty());
  EXPECT_TRUE(ExpectedRedOfGatesJson(R"({"expected_red":"p3"})").empty());
  EXPECT_TRUE(ExpectedRedOfGatesJson(R"({"expected_red":["p3",7]})").empty());
}

TEST(HtmlReport, ACaughtSeededDefectShowsRedAsExpectedNotAsAFailure) {
  const auto outcome = Outcome();  // p3 red
  const ScenarioReport r = MakeScenarioReport(outcome, kExpectsP3.expected_red);
  EXPECT_EQ(r.judgement, "RED-AS-EXPECTED");
  EXPECT_EQ(r.failures, "p3-reverse-lookup: 2 lost of 10 checked\n");  // the facts are unchanged
  const std::string html = RenderHtmlReport(kExpectsP3, r);
  EXPECT_THAT(html, HasSubstr("<body data-verdict=\"RED-AS-EXPECTED\">"));
  EXPECT_THAT(html, HasSubstr("<title>verdict / lost-writes: RED AS EXPECTED</title>"));
  EXPECT_THAT(html, HasSubstr("<div class=\"banner expected\">"));
  EXPECT_THAT(html, HasSubstr("<span class=\"verdict-RED-AS-EXPECTED\">&nbsp;RED AS EXPECTED&nbsp;</span> 1 of 3 gates red"));
  EXPECT_THAT(html, HasSubstr("<p class=\"expected-red\"><b>Red as expected:</b> the scenario seeds a defect that must "
                              "turn p3-reverse-lookup red, and it did: the defect was caught, and nothing else is red.</p>"));
  EXPECT_THAT(html, HasSubstr("<ul class=\"caught\">\n<li>p3-reverse-lookup: 2 lost of 10 checked</li>"));
  EXPECT_THAT(html, HasSubstr("<tr class=\"gate caught\" data-result=\"FAIL\" data-gate=\"p3-reverse-lookup\" "
                              "data-expected=\"red\"><td class=\"result\">FAIL<span class=\"expectation\">red as "
                              "expected: the seeded defect was caught</span></td>"));
  // Not a plain failure anywhere on the page.
  EXPECT_THAT(html, Not(HasSubstr("data-verdict=\"FAIL\"")));
  EXPECT_THAT(html, Not(HasSubstr("<div class=\"banner fail\">")));
  EXPECT_THAT(html, Not(HasSubstr("<ul class=\"failures\">")));
  EXPECT_THAT(html, Not(HasSubstr("NOT caught")));
  // The same run without the expectation is a plain failure.
  EXPECT_THAT(RenderHtmlReport(kInfo, MakeScenarioReport(outcome)), HasSubstr("<body data-verdict=\"FAIL\">"));
}

TEST(HtmlReport, AnExpectedRedGateThatStayedGreenIsTheFailureAndComesFirst) {
  const auto outcome = DefectNotCaught();
  const ScenarioReport r = MakeScenarioReport(outcome, kExpectsP3.expected_red);
  EXPECT_EQ(r.judgement, "FAIL");
  EXPECT_FALSE(r.all_passed);  // every gate is green, yet the scenario failed
  EXPECT_EQ(r.failures, "seeded defect NOT caught: gate p3-reverse-lookup stayed green: 0 lost of 10 checked\n");
  const std::string html = RenderHtmlReport(kExpectsP3, r);
  EXPECT_THAT(html, HasSubstr("<body data-verdict=\"FAIL\">"));
  EXPECT_THAT(html, HasSubstr("<div class=\"banner fail\">"));
  EXPECT_THAT(html, HasSubstr("<span class=\"verdict-FAIL\">&nbsp;FAIL&nbsp;</span> 0 of 3 gates red"));
  EXPECT_THAT(html, HasSubstr("<p class=\"expected-red\">The scenario seeds a defect that must turn p3-reverse-lookup "
                              "red (and nothing else).</p>"));
  EXPECT_THAT(html, HasSubstr("<ul class=\"failures\">\n<li>seeded defect NOT caught: gate p3-reverse-lookup stayed "
                              "green: 0 lost of 10 checked</li>"));
  const std::string row = "<tr class=\"gate not-caught\" data-result=\"PASS\" data-gate=\"p3-reverse-lookup\" "
                          "data-expected=\"red\"><td class=\"result\">PASS<span class=\"expectation\">expected red: "
                          "the seeded defect was NOT caught</span></td>";
  EXPECT_THAT(html, HasSubstr(row));
  // Above the other rows of the table.
  EXPECT_LT(html.find(row), html.find("data-gate=\"p1-longest-outage\""));
  EXPECT_THAT(html, Not(HasSubstr("RED AS EXPECTED")));

  // N/A is not caught either; nor is a gate the run does not have.
  auto na = DefectNotCaught();
  na.gates.back() = gates::NotApplicable("p3-reverse-lookup", "no promise");
  EXPECT_EQ(MakeScenarioReport(na, kExpectsP3.expected_red).failures,
            "seeded defect NOT caught: gate p3-reverse-lookup had nothing to check (N/A): no promise\n");
  const ScenarioReport unknown = MakeScenarioReport(Outcome(), {"p3-reverse-lookup", "p9-typo"});
  EXPECT_EQ(unknown.judgement, "FAIL");
  EXPECT_THAT(unknown.failures, HasSubstr("expected_red names an unknown gate 'p9-typo'\n"));
}

TEST(HtmlReport, ACaughtDefectWithAnotherReasonToBeRedIsAFailure) {
  auto outcome = Outcome();  // p3 red, as expected
  outcome.gates[0].passed = false;  // and p1 red too
  EXPECT_EQ(MakeScenarioReport(outcome, kExpectsP3.expected_red).judgement, "FAIL");
  auto interrupted = Outcome();
  interrupted.interrupted = true;
  const ScenarioReport r = MakeScenarioReport(interrupted, kExpectsP3.expected_red);
  EXPECT_EQ(r.judgement, "FAIL");
  const std::string html = RenderHtmlReport(kExpectsP3, r);
  EXPECT_THAT(html, HasSubstr("<body data-verdict=\"FAIL\">"));
  EXPECT_THAT(html, HasSubstr("<ul class=\"failures\">"));
  // The expected gate's row still says it was caught; the run is red for the interruption.
  EXPECT_THAT(html, HasSubstr("<tr class=\"gate caught\" data-result=\"FAIL\" data-gate=\"p3-reverse-lookup\""));
}

TEST(HtmlReport, TheIndexShowsACaughtDefectAsRedAsExpectedAndTheSetGreen) {
  const std::string index = RenderSetIndex("verdict", {{.scenario = "caught", .verdict = "RED-AS-EXPECTED", .red = 1},
                                                       {.scenario = "green", .verdict = "PASS", .red = 0}});
  EXPECT_THAT(index, HasSubstr("<body data-verdict=\"PASS\">"));
  EXPECT_THAT(index, HasSubstr("<p>2 scenario(s), 0 not green, 1 red as expected (a seeded defect caught)</p>"));
  EXPECT_THAT(index, HasSubstr("<tr class=\"scenario\" data-result=\"RED-AS-EXPECTED\"><td "
                               "class=\"verdict-RED-AS-EXPECTED\">RED AS EXPECTED</td><td><a "
                               "href=\"caught/report.html\">caught</a></td>"));
  const std::string red = RenderSetIndex("verdict", {{.scenario = "caught", .verdict = "RED-AS-EXPECTED", .red = 1},
                                                     {.scenario = "not-caught", .verdict = "FAIL", .red = 0}});
  EXPECT_THAT(red, HasSubstr("<body data-verdict=\"FAIL\">"));
  EXPECT_THAT(red, HasSubstr("<p>2 scenario(s), 1 not green, 1 red as expected (a seeded defect caught)</p>"));
  EXPECT_THAT(red, HasSubstr("<tr class=\"scenario\" data-result=\"FAIL\"><td class=\"verdict-FAIL\">FAIL</td><td><a "
                             "href=\"not-caught/report.html\">"));
}

TEST(HtmlReporter, TheIndexJudgesEachFolderAgainstItsExpectedRedGates) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-html-test");
  const std::filesystem::path root = tmp.path();
  ArtifactsReporter files;
  HtmlReporter html;
  const auto caught = Outcome();
  const auto not_caught = DefectNotCaught();
  const auto plain_red = Outcome();
  const auto info = [&](const std::string& name, std::set<std::string> expected) {
    return ScenarioInfo{.set = "verdict", .scenario = name, .artifacts_dir = (root / "verdict" / name).string(),
                        .expected_red = std::move(expected)};
  };
  ReportScenario({&files, &html}, info("caught", {"p3-reverse-lookup"}), caught);
  ReportScenario({&files, &html}, info("not-caught", {"p3-reverse-lookup"}), not_caught);
  ReportScenario({&html, &files}, info("plain-red", {}), plain_red);
  EXPECT_THAT(Slurp(root / "verdict/caught/gates.json"), HasSubstr("\"expected_red\":[\"p3-reverse-lookup\"]"));
  EXPECT_EQ(Slurp(root / "verdict/not-caught/failures.txt"),
            "seeded defect NOT caught: gate p3-reverse-lookup stayed green: 0 lost of 10 checked\n");
  // The index as the last scenario wrote it (this one from its report, the others from their files).
  const std::string index = Slurp(root / "verdict/index.html");
  EXPECT_EQ(index, RenderSetIndex("verdict", {{.scenario = "caught", .verdict = "RED-AS-EXPECTED", .red = 1},
                                              {.scenario = "not-caught", .verdict = "FAIL", .red = 0},
                                              {.scenario = "plain-red", .verdict = "FAIL", .red = 1}}));
  // And from the files alone.
  const auto entries = ScanSetFolder((root / "verdict").string());
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].verdict, "RED-AS-EXPECTED");
  EXPECT_EQ(entries[1].verdict, "FAIL");
  EXPECT_EQ(entries[2].verdict, "FAIL");
  EXPECT_EQ(Slurp(root / "verdict/caught/report.html"),
            RenderHtmlReport(info("caught", {"p3-reverse-lookup"}), MakeScenarioReport(caught, {"p3-reverse-lookup"})));
}

}  // namespace
}  // namespace aftershock::report
