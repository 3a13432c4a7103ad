#include "framework/report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace aftershock::report {
namespace {

constexpr double kWidth = 960;
constexpr double kHeight = 270;
constexpr double kLeft = 64;
constexpr double kRight = 16;
constexpr double kTop = 40;
constexpr double kBottom = 30;
constexpr double kPlotW = kWidth - kLeft - kRight;
constexpr double kPlotH = kHeight - kTop - kBottom;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string Tick(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A step of 1, 2 or 5 times a power of ten giving at most `max_ticks` intervals over `span`.
double NiceStep(double span, int max_ticks) {
  if (span <= 0) return 1;
  const double raw = span / max_ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) return m * mag;
  }
  return 10 * mag;
}

struct YAxis {
  bool log = false;
  double lo = 0;
  double hi = 1;  // linear: [0, hi]; log: [10^lo, 10^hi] stored as exponents
  double Map(double y) const {
    const double f = log ? (std::log10(y) - lo) / (hi - lo) : (y - lo) / (hi - lo);
    return kTop + kPlotH * (1.0 - std::clamp(f, 0.0, 1.0));
  }
};

}  // namespace

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string RenderPlot(const Plot& plot) {
  // The data range; on a log axis only positive values count.
  double y_min = std::numeric_limits<double>::infinity();
  double y_max = 0;
  bool any = false;
  for (const PlotSeries& s : plot.series) {
    for (const auto& [x, y] : s.points) {
      if (!y || !std::isfinite(*y) || (plot.log_y && *y <= 0)) continue;
      any = true;
      y_min = std::min(y_min, *y);
      y_max = std::max(y_max, *y);
    }
  }
  const double x_max = plot.x_max > 0 ? plot.x_max : 1;
  auto map_x = [&](double x) { return kLeft + kPlotW * std::clamp(x / x_max, 0.0, 1.0); };

  std::string o = "<svg class=\"plot\" data-plot=\"" + EscapeHtml(plot.id) + "\" viewBox=\"0 0 " + Num(kWidth) + " " +
                  Num(kHeight) + "\" role=\"img\">\n";
  o += "<text class=\"plot-title\" x=\"" + Num(kLeft) + "\" y=\"16\">" + EscapeHtml(plot.title) + "</text>\n";
  // Legend, on one line under the title.
  double lx = kLeft;
  for (const PlotSeries& s : plot.series) {
    o += "<rect x=\"" + Num(lx) + "\" y=\"23\" width=\"10\" height=\"10\" fill=\"" + EscapeHtml(s.color) + "\"/>";
    o += "<text class=\"legend\" x=\"" + Num(lx + 14) + "\" y=\"32\">" + EscapeHtml(s.name) + "</text>\n";
    lx += 24 + 7.0 * static_cast<double>(s.name.size());
  }
  o += "<rect class=\"plot-area\" x=\"" + Num(kLeft) + "\" y=\"" + Num(kTop) + "\" width=\"" + Num(kPlotW) +
       "\" height=\"" + Num(kPlotH) + "\"/>\n";
  if (!any) {
    o += "<text class=\"no-data\" x=\"" + Num(kLeft + kPlotW / 2) + "\" y=\"" + Num(kTop + kPlotH / 2) +
         "\" text-anchor=\"middle\">no data</text>\n</svg>\n";
    return o;
  }

  YAxis axis;
  axis.log = plot.log_y;
  if (axis.log) {
    axis.lo = std::floor(std::log10(y_min));
    axis.hi = std::ceil(std::log10(y_max));
    if (axis.hi <= axis.lo) axis.hi = axis.lo + 1;
  } else {
    const double step = NiceStep(y_max, 5);
    axis.hi = std::max(step, std::ceil(y_max / step) * step);
  }

  // Chaos windows and instants first, under the series.
  for (const PlotWindow& w : plot.windows) {
    const double x0 = map_x(w.begin);
    const double width = std::max(2.0, map_x(w.end) - x0);
    o += "<rect class=\"chaos-window\" data-fault=\"" + EscapeHtml(w.label) + "\" x=\"" + Num(x0) + "\" y=\"" +
         Num(kTop) + "\" width=\"" + Num(width) + "\" height=\"" + Num(kPlotH) + "\"><title>" + EscapeHtml(w.label) +
         " " + Tick(w.begin) + " s - " + Tick(w.end) + " s</title></rect>\n";
    o += "<text class=\"chaos-label\" x=\"" + Num(x0 + 2) + "\" y=\"" + Num(kTop + 11) + "\">" + EscapeHtml(w.label) +
         "</text>\n";
  }
  for (const PlotInstant& e : plot.instants) {
    const double x = map_x(e.at);
    o += "<line class=\"chaos-event\" data-event=\"" + EscapeHtml(e.kind) + "\" data-fault=\"" + EscapeHtml(e.label) +
         "\" x1=\"" + Num(x) + "\" x2=\"" + Num(x) + "\" y1=\"" + Num(kTop) + "\" y2=\"" + Num(kTop + kPlotH) +
         "\"><title>" + EscapeHtml(e.kind + " " + e.label + " at " + Tick(e.at) + " s: " + e.title) + "</title></line>\n";
  }

  for (std::size_t i = 0; i < plot.spans.size(); ++i) {
    const PlotSpan& sp = plot.spans[i];
    const double x0 = map_x(sp.begin);
    const double x1 = std::max(x0 + 1, map_x(sp.end));
    const double y = kTop + 22 + 12.0 * static_cast<double>(i % 4);
    o += "<g class=\"confirm-span\" data-fault=\"" + EscapeHtml(sp.fault) + "\"><line x1=\"" + Num(x0) + "\" x2=\"" +
         Num(x1) + "\" y1=\"" + Num(y) + "\" y2=\"" + Num(y) + "\"/><line x1=\"" + Num(x1) + "\" x2=\"" + Num(x1) +
         "\" y1=\"" + Num(y - 4) + "\" y2=\"" + Num(y + 4) + "\"/><text x=\"" + Num(x1 + 3) + "\" y=\"" + Num(y + 3) +
         "\">" + EscapeHtml(sp.label) + "</text></g>\n";
  }

  // Axes: y gridlines with labels, x ticks in seconds.
  if (axis.log) {
    for (double e = axis.lo; e <= axis.hi + 1e-9; e += 1) {
      const double v = std::pow(10.0, e);
      const double y = axis.Map(v);
      o += "<line class=\"grid\" x1=\"" + Num(kLeft) + "\" x2=\"" + Num(kLeft + kPlotW) + "\" y1=\"" + Num(y) +
           "\" y2=\"" + Num(y) + "\"/><text class=\"tick\" x=\"" + Num(kLeft - 4) + "\" y=\"" + Num(y + 4) +
           "\" text-anchor=\"end\">" + Tick(v) + "</text>\n";
    }
  } else {
    const double step = NiceStep(axis.hi, 5);
    for (double v = 0; v <= axis.hi + step / 2; v += step) {
      const double y = axis.Map(v);
      o += "<line class=\"grid\" x1=\"" + Num(kLeft) + "\" x2=\"" + Num(kLeft + kPlotW) + "\" y1=\"" + Num(y) +
           "\" y2=\"" + Num(y) + "\"/><text class=\"tick\" x=\"" + Num(kLeft - 4) + "\" y=\"" + Num(y + 4) +
           "\" text-anchor=\"end\">" + Tick(v) + "</text>\n";
    }
  }
  const double x_step = NiceStep(x_max, 10);
  for (double v = 0; v <= x_max + 1e-9; v += x_step) {
    o += "<text class=\"tick\" x=\"" + Num(map_x(v)) + "\" y=\"" + Num(kTop + kPlotH + 14) +
         "\" text-anchor=\"middle\">" + Tick(v) + "</text>\n";
  }
  o += "<text class=\"tick\" x=\"" + Num(kLeft + kPlotW) + "\" y=\"" + Num(kHeight - 2) +
       "\" text-anchor=\"end\">" + EscapeHtml(plot.x_label) + "</text>\n";
  o += "<text class=\"tick\" x=\"4\" y=\"" + Num(kTop - 4) + "\">" + EscapeHtml(plot.y_label) + "</text>\n";

  // The series: one polyline per unbroken run of drawable points.
  for (const PlotSeries& s : plot.series) {
    std::string pts;
    int count = 0;
    auto flush = [&] {
      if (count > 0) {
        o += "<polyline class=\"series\" data-series=\"" + EscapeHtml(s.name) + "\" stroke=\"" + EscapeHtml(s.color) +
             "\"" + (s.dashed ? " stroke-dasharray=\"4 3\"" : "") + " points=\"" + pts + "\"/>\n";
      }
      pts.clear();
      count = 0;
    };
    for (const auto& [x, y] : s.points) {
      if (!y || !std::isfinite(*y) || (axis.log && *y <= 0)) {
        flush();
        continue;
      }
      if (count > 0) pts += ' ';
      pts += Num(map_x(x)) + "," + Num(axis.Map(*y));
      ++count;
    }
    flush();
  }
  o += "</svg>\n";
  return o;
}

}  // namespace aftershock::report
