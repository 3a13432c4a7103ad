#include "tools/report/history.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "framework/report/svg_plot.h"

namespace aftershock::report_tools {
namespace {

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// The value of `figure` in `s`: `gate.figure` exactly, or a bare figure name in any gate.
std::optional<double> Find(const ScenarioFigures& s, const std::string& gate, const std::string& figure,
                           std::string* found_gate) {
  for (const auto& [g, f] : s.gates) {
    if (!gate.empty() && g != gate) continue;
    for (const auto& [name, value] : f.figures) {
      if (name == figure) {
        *found_gate = g;
        return value;
      }
    }
  }
  return std::nullopt;
}

const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"};

}  // namespace

History CollectHistory(const std::vector<std::map<std::string, ScenarioFigures>>& runs,
                       const std::vector<std::string>& run_names, const std::string& figure,
                       const std::string& scenario) {
  History h;
  h.runs = run_names;
  // "<gate>.<figure>": the gate is everything before the last dot (figure names have none).
  const auto dot = figure.rfind('.');
  const std::string gate = dot == std::string::npos ? "" : figure.substr(0, dot);
  h.figure = dot == std::string::npos ? figure : figure.substr(dot + 1);
  for (const auto& run : runs) {
    for (const auto& [key, s] : run) {
      if (!scenario.empty() && key != scenario) continue;
      std::string g;
      if (Find(s, gate, h.figure, &g) && std::find(h.scenarios.begin(), h.scenarios.end(), key) == h.scenarios.end()) {
        h.scenarios.push_back(key);
        if (h.gate.empty()) h.gate = g;
      }
    }
  }
  std::sort(h.scenarios.begin(), h.scenarios.end());
  for (const auto& run : runs) {
    std::vector<std::optional<double>> row;
    for (const std::string& key : h.scenarios) {
      const auto it = run.find(key);
      std::string g;
      row.push_back(it == run.end() ? std::nullopt : Find(it->second, gate, h.figure, &g));
    }
    h.values.push_back(std::move(row));
  }
  return h;
}

void WriteHistoryText(const History& h, std::ostream& out) {
  out << h.gate << "." << h.figure << "\n";
  std::vector<std::vector<std::string>> cells = {{"run"}};
  for (const auto& s : h.scenarios) cells[0].push_back(s);
  for (std::size_t r = 0; r < h.runs.size(); ++r) {
    cells.push_back({h.runs[r]});
    for (const auto& v : h.values[r]) cells.back().push_back(v ? Num(*v) : "-");
  }
  std::vector<std::size_t> width(cells[0].size(), 0);
  for (const auto& row : cells) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    out << line << "\n";
  }
}

std::string HistorySvg(const History& h) {
  report::Plot p;
  p.id = "history";
  p.title = h.gate + "." + h.figure + " over " + std::to_string(h.runs.size()) + " runs";
  p.y_label = h.figure;
  p.x_max = static_cast<double>(h.runs.size()) + 1;
  p.x_label = "run (in the order given)";
  for (std::size_t c = 0; c < h.scenarios.size(); ++c) {
    report::PlotSeries s{.name = h.scenarios[c], .color = kColours[c % std::size(kColours)], .points = {},
                         .dashed = false};
    for (std::size_t r = 0; r < h.runs.size(); ++r) s.points.emplace_back(static_cast<double>(r + 1), h.values[r][c]);
    p.series.push_back(std::move(s));
  }
  std::string svg = report::RenderPlot(p);
  // A file of its own needs the namespace (inline SVG in HTML does not).
  svg.replace(0, 4, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<style>text{font-family:sans-serif}.plot-area{fill:#fcfcfc;"
         "stroke:#bbb}.grid{stroke:#e4e4e4}polyline.series{fill:none;stroke-width:1.6}.tick,.legend{font-size:11px;"
         "fill:#555}</style>\n" + svg;
}

int RunHistory(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string usage =
      "usage: aftershock-report history --figure=[GATE.]FIGURE [--scenario=SET/NAME] [--svg=FILE] DIR...\n";
  std::string figure, scenario, svg;
  std::vector<std::string> dirs;
  for (const std::string& a : args) {
    if (a.rfind("--figure=", 0) == 0) {
      figure = a.substr(9);
    } else if (a.rfind("--scenario=", 0) == 0) {
      scenario = a.substr(11);
    } else if (a.rfind("--svg=", 0) == 0) {
      svg = a.substr(6);
    } else if (a.rfind("--", 0) == 0) {
      err << "aftershock-report history: unknown flag '" << a << "'\n" << usage;
      return 2;
    } else {
      dirs.push_back(a);
    }
  }
  if (figure.empty() || dirs.empty()) {
    err << "aftershock-report history: " << (figure.empty() ? "--figure is required" : "no run folder given") << "\n"
        << usage;
    return 2;
  }
  std::vector<std::map<std::string, ScenarioFigures>> runs;
  try {
    for (const auto& d : dirs) runs.push_back(LoadRun(d));
  } catch (const std::exception& e) {
    err << "aftershock-report history: " << e.what() << "\n";
    return 2;
  }
  const History h = CollectHistory(runs, dirs, figure, scenario);
  if (h.scenarios.empty()) {
    err << "aftershock-report history: no run has the figure '" << figure << "'"
        << (scenario.empty() ? "" : " for scenario " + scenario) << "\n";
    return 1;
  }
  WriteHistoryText(h, out);
  if (!svg.empty()) {
    std::ofstream f(svg, std::ios::binary | std::ios::trunc);
    f << HistorySvg(h);
    f.close();
    if (!f) {
      err << "aftershock-report history: cannot write " << svg << "\n";
      return 2;
    }
    out << "written to " << svg << "\n";
  }
  return 0;
}

}  // namespace aftershock::report_tools
