// SvgPlot: the inline-SVG primitives of the HTML run report (html_report.h): one time-series plot
// with a linear or logarithmic y axis, line series with gaps, shaded windows (chaos faults) and
// labelled instants (chaos events) on the same time axis. Pure functions from data to markup; no
// script, no external font or URL, so the page opens offline from a CI artifact.
//
// The markup has stable hooks for tests and tools: the plot is `<svg class="plot" data-plot="<id>">`,
// each series a `<polyline class="series" data-series="<name>">` (one per unbroken run of points),
// each window `<rect class="chaos-window" data-fault="<label>">`, each instant
// `<line class="chaos-event" data-event="<kind>" data-fault="<label>">`, each span
// `<g class="confirm-span" data-fault="<fault>">`. An empty plot (no point in
// any series) renders `<text class="no-data">no data</text>` instead of axes.
//
//   Plot p{.id = "latency", .title = "latency (ms)", .log_y = true, .x_max = 60};
//   p.series.push_back({.name = "p99", .color = "#d62728", .points = {{0.5, 12.3}, {1.5, std::nullopt}}});
//   p.windows.push_back({.label = "primary-kill", .begin = 10, .end = 22});
//   std::string svg = RenderPlot(p);
#ifndef AFTERSHOCK_FRAMEWORK_REPORT_SVG_PLOT_H_
#define AFTERSHOCK_FRAMEWORK_REPORT_SVG_PLOT_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aftershock::report {

// `text` with & < > " ' replaced by entities: safe in element content and in quoted attributes.
std::string EscapeHtml(std::string_view text);

struct PlotSeries {
  std::string name;   // legend text and data-series
  std::string color;  // a CSS colour, e.g. "#1f77b4"
  // (x, y); an empty y breaks the line (e.g. a second without any completed call on a latency plot).
  std::vector<std::pair<double, std::optional<double>>> points;
  bool dashed = false;
};

// A shaded span of the time axis, e.g. a fault from its apply to its revert (begin == end: an action).
struct PlotWindow {
  std::string label;
  double begin = 0;
  double end = 0;
};

// A labelled instant, e.g. a fault's confirmation ("leader pg-b after 7.4 s").
struct PlotInstant {
  std::string kind;   // data-event, e.g. "confirmed"
  std::string label;  // data-fault
  std::string title;  // the tooltip (<title>), e.g. the event's detail
  double at = 0;
};

// A span drawn as a bracket near the top of the plot with its label, e.g. from a fault's apply to
// the confirmation of its effect ("primary-kill confirmed after 9.9 s": the failover time).
struct PlotSpan {
  std::string label;  // the text, and data-label
  std::string fault;  // data-fault
  double begin = 0;
  double end = 0;
};

struct Plot {
  std::string id;       // data-plot
  std::string title;    // shown above the plot
  std::string y_label;  // e.g. "ms"
  bool log_y = false;   // log10 axis; y <= 0 points are not drawn on it
  double x_max = 0;     // the x axis spans [0, x_max]
  std::string x_label = "run second";
  std::vector<PlotSeries> series;
  std::vector<PlotWindow> windows;
  std::vector<PlotInstant> instants;
  std::vector<PlotSpan> spans;
};

// One `<svg class="plot" ...>` element (width 100% of its container, fixed aspect).
std::string RenderPlot(const Plot& plot);

}  // namespace aftershock::report

#endif  // AFTERSHOCK_FRAMEWORK_REPORT_SVG_PLOT_H_
