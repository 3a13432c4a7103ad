#include "framework/report/internal/curve_section.h"

#include <algorithm>
#include <cstdio>

#include "framework/report/svg_plot.h"

namespace aftershock::report::internal {
namespace {

std::string CurveNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string CurveSection(const scenario::OutcomeCurve& c) {
  double x_max = 0;
  for (const auto& [x, y] : c.points) x_max = std::max(x_max, x);
  for (const auto& [x, label] : c.x_marks) x_max = std::max(x_max, x);
  Plot p{.id = "curve-" + c.name, .title = c.title, .y_label = c.y_label, .log_y = false,
         .x_max = x_max > 0 ? x_max * 1.05 : 1, .x_label = c.x_label, .series = {}, .windows = {}, .instants = {},
         .spans = {}};
  PlotSeries curve{.name = c.y_label, .color = "#2ca02c", .points = {}, .dashed = false};
  for (const auto& [x, y] : c.points) curve.points.emplace_back(x, y);
  p.series.push_back(std::move(curve));
  if (c.identity_line && !c.points.empty()) {
    p.series.push_back({.name = "y = x", .color = "#7f7f7f", .points = {{0, 0.0}, {x_max, x_max}}, .dashed = true});
  }
  for (const auto& [x, label] : c.x_marks) p.instants.push_back({.kind = "mark", .label = label, .title = label, .at = x});

  std::string table = "<table class=\"curve\" data-curve=\"" + EscapeHtml(c.name) + "\">\n<tr><th>" +
                      EscapeHtml(c.x_label) + "</th><th>" + EscapeHtml(c.y_label) + "</th></tr>\n";
  for (const auto& [x, y] : c.points) {
    table += "<tr class=\"point\"><td class=\"num\">" + CurveNumber(x) + "</td><td class=\"num\">" + CurveNumber(y) +
             "</td></tr>\n";
  }
  std::string marks;
  for (const auto& [x, label] : c.x_marks) {
    marks += (marks.empty() ? "" : "; ") + EscapeHtml(label) + " at " + CurveNumber(x);
  }
  return "<h2>" + EscapeHtml(c.title) + "</h2>\n" + RenderPlot(p) +
         (marks.empty() ? std::string() : "<p class=\"curve-marks\">" + marks + "</p>\n") + table + "</table>\n";
}

}  // namespace

std::string CurvesSection(const std::vector<scenario::OutcomeCurve>& curves) {
  std::string out;
  for (const scenario::OutcomeCurve& c : curves) out += CurveSection(c);
  return out;
}

}  // namespace aftershock::report::internal
