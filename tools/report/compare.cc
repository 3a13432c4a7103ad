#include "tools/report/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "framework/report/scenario_reporter.h"
#include "framework/report/svg_plot.h"
#include "tools/report/history.h"
#include "tools/report/summary.h"

namespace aftershock::report_tools {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

ScenarioFigures ReadScenario(const fs::path& dir) {
  ScenarioFigures s;
  if (const auto text = Slurp(dir / "gates.json")) {
    nlohmann::ordered_json j;
    try {
      j = nlohmann::ordered_json::parse(*text);
      for (const auto& g : j.at("gates")) {
        GateFigures f;
        f.result = g.at("result").get<std::string>();
        f.message = g.value("message", "");
        for (const auto& [name, value] : g.at("figures").items()) {
          f.figures.emplace_back(name, value.is_number() ? value.get<double>() : std::nan(""));
        }
        if (g.contains("directions")) {
          for (const auto& [name, value] : g.at("directions").items()) {
            const std::string d = value.get<std::string>();
            if (d == "lower") f.directions[name] = Direction::kLowerIsBetter;
            else if (d == "higher") f.directions[name] = Direction::kHigherIsBetter;
            else if (d == "neither") f.directions[name] = Direction::kNeutral;
            else throw std::runtime_error("figure '" + name + "': direction '" + d + "' (expected lower, higher or neither)");
          }
        }
        s.gates.emplace_back(g.at("name").get<std::string>(), std::move(f));
      }
      s.expected_red = report::ExpectedRedOfGatesJson(*text);
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error((dir / "gates.json").string() + ": not a gates.json: " + e.what());
    } catch (const std::runtime_error& e) {
      throw std::runtime_error((dir / "gates.json").string() + ": not a gates.json: " + e.what());
    }
  } else if (const auto verdict = Slurp(dir / "verdict.txt")) {
    std::istringstream lines(*verdict);
    for (std::string line; std::getline(lines, line);) {
      const auto space = line.find(' ');
      const auto colon = line.find(':', space == std::string::npos ? 0 : space);
      if (space == std::string::npos || colon == std::string::npos) continue;
      const std::string message = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
      s.gates.emplace_back(line.substr(space + 1, colon - space - 1), GateFigures{line.substr(0, space), {}, message, {}});
    }
  }
  if (const auto stages = Slurp(dir / "stage-report.json")) {
    try {
      const auto j = nlohmann::json::parse(*stages);
      const nlohmann::json* total = nullptr;
      for (const auto& row : j) {
        if (row.value("stage", "") == "total") total = &row;
      }
      if (total != nullptr) {
        GateFigures f{"", {}, "", {}};
        // The stage report's total row (docs/formats.md), each field with its direction.
        static const std::pair<const char*, Direction> kTotals[] = {
            {"requests", Direction::kNeutral},         {"ok", Direction::kHigherIsBetter},
            {"failed", Direction::kLowerIsBetter},     {"shed", Direction::kLowerIsBetter},
            {"success_ratio", Direction::kHigherIsBetter}, {"p50_ms", Direction::kLowerIsBetter},
            {"p99_ms", Direction::kLowerIsBetter},     {"max_ms", Direction::kLowerIsBetter}};
        for (const auto& [key, direction] : kTotals) {
          if (!total->contains(key) || !total->at(key).is_number()) continue;
          f.figures.emplace_back(key, total->at(key).get<double>());
          f.directions[key] = direction;
        }
        s.gates.emplace_back("stage total", std::move(f));
      }
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error((dir / "stage-report.json").string() + ": not a stage report: " + e.what());
    }
  }
  return s;
}

const GateFigures* FindGate(const ScenarioFigures& s, const std::string& name) {
  for (const auto& [n, g] : s.gates) {
    if (n == name) return &g;
  }
  return nullptr;
}

std::optional<double> FindFigure(const GateFigures& g, const std::string& name) {
  for (const auto& [n, v] : g.figures) {
    if (n == name) return v;
  }
  return std::nullopt;
}

// Worse, by how much, in the figure's bad direction (> 0: worse). -1 of a recovery time is infinite.
double Worsening(const std::string& figure, Direction d, double a, double b) {
  if (d == Direction::kLowerIsBetter && Contains(figure, "time_to_recover")) {
    if (a < 0 && b < 0) return 0;
    if (b < 0) return INFINITY;
    if (a < 0) return -INFINITY;
  }
  return d == Direction::kLowerIsBetter ? b - a : a - b;
}

void CompareFigures(const std::string& scenario, const std::string& gate, const GateFigures* a, const GateFigures* b,
                    const CompareOptions& options, std::vector<CompareRow>& rows) {
  std::vector<std::string> names;
  for (const GateFigures* g : {a, b}) {
    if (g == nullptr) continue;
    for (const auto& [n, v] : g->figures) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  }
  for (const std::string& n : names) {
    CompareRow r{.scenario = scenario, .gate = gate, .figure = n, .a = std::nullopt, .b = std::nullopt,
                 .a_text = "-", .b_text = "-", .flag = "", .regression = false};
    if (a != nullptr) r.a = FindFigure(*a, n);
    if (b != nullptr) r.b = FindFigure(*b, n);
    if (r.a) r.a_text = Num(*r.a);
    if (r.b) r.b_text = Num(*r.b);
    const Direction d = DeclaredDirection(n, a, b);
    if (r.a && !r.b) {
      r.flag = "missing in B";
      r.regression = d != Direction::kNeutral;
    } else if (!r.a && r.b) {
      r.flag = "new in B";
    } else if (r.a && r.b && d != Direction::kNeutral) {
      const double worse = Worsening(n, d, *r.a, *r.b);
      const double allowed = std::max(options.tolerance * std::fabs(*r.a), options.abs_tolerance);
      if (worse > allowed) {
        r.flag = "regression";
        r.regression = true;
      } else if (-worse > allowed) {
        r.flag = "improved";
      }
    }
    rows.push_back(std::move(r));
  }
}

std::string Delta(const CompareRow& r) {
  if (!r.a || !r.b) return "";
  const double d = *r.b - *r.a;
  std::string s = (d > 0 ? "+" : "") + Num(d);
  if (*r.a != 0 && d != 0) s += " (" + std::string(d > 0 ? "+" : "") + Num(100.0 * d / std::fabs(*r.a)) + " %)";
  return s;
}

std::string Summary(const std::vector<CompareRow>& rows, const CompareOptions& options) {
  const auto n = std::count_if(rows.begin(), rows.end(), [](const CompareRow& r) { return r.regression; });
  return (n == 0 ? std::string("no regression") : std::to_string(n) + " regression(s)") + " (tolerance " +
         Num(100.0 * options.tolerance) + " %, at least " + Num(options.abs_tolerance) + ")";
}

double ParseTolerance(const std::string& flag, const std::string& text) {
  std::string t = text;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (t.empty() || used != t.size() || v < 0 || !std::isfinite(v)) {
    throw std::invalid_argument(flag + ": '" + text + "' is not a non-negative number (e.g. 0.1 or 10%)");
  }
  return percent ? v / 100.0 : v;
}

}  // namespace

std::map<std::string, ScenarioFigures> LoadRun(const std::string& dir) {
  std::map<std::string, ScenarioFigures> run;
  const fs::path root = fs::path(dir).lexically_normal();
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw std::runtime_error(dir + ": not a folder");
  auto take = [&](const fs::path& folder) {
    std::error_code e;
    if (!fs::exists(folder / "gates.json", e) && !fs::exists(folder / "verdict.txt", e)) return;
    std::string key = folder.lexically_relative(root).generic_string();
    if (key == "." || key.empty()) key = root.filename().empty() ? root.parent_path().filename().string()
                                                                  : root.filename().string();
    run[key] = ReadScenario(folder);
  };
  take(root);
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it.depth() >= 2) it.disable_recursion_pending();
    std::error_code e;
    if (it->is_directory(e)) take(it->path());
  }
  return run;
}

Direction DeclaredDirection(const std::string& figure, const GateFigures* a, const GateFigures* b) {
  for (const GateFigures* g : {b, a}) {
    if (g == nullptr) continue;
    if (const auto it = g->directions.find(figure); it != g->directions.end()) return it->second;
  }
  return Direction::kNeutral;
}

std::vector<CompareRow> Compare(const std::map<std::string, ScenarioFigures>& a,
                                const std::map<std::string, ScenarioFigures>& b, const CompareOptions& options) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a) keys.insert(k);
  for (const auto& [k, v] : b) keys.insert(k);
  std::vector<CompareRow> rows;
  for (const std::string& key : keys) {
    const auto ia = a.find(key);
    const auto ib = b.find(key);
    if (ia == a.end() || ib == b.end()) {
      const bool missing = ib == b.end();
      rows.push_back({.scenario = key, .gate = "", .figure = "scenario", .a = std::nullopt, .b = std::nullopt,
                      .a_text = missing ? "present" : "-", .b_text = missing ? "-" : "present",
                      .flag = missing ? "missing in B" : "new in B", .regression = missing});
      continue;
    }
    std::vector<std::string> gates;
    for (const auto* s : {&ia->second, &ib->second}) {
      for (const auto& [n, g] : s->gates) {
        if (std::find(gates.begin(), gates.end(), n) == gates.end()) gates.push_back(n);
      }
    }
    for (const std::string& gate : gates) {
      const GateFigures* ga = FindGate(ia->second, gate);
      const GateFigures* gb = FindGate(ib->second, gate);
      const bool has_result = (ga != nullptr && !ga->result.empty()) || (gb != nullptr && !gb->result.empty());
      if (has_result) {
        CompareRow r{.scenario = key, .gate = gate, .figure = "result", .a = std::nullopt, .b = std::nullopt,
                     .a_text = ga ? ga->result : "-", .b_text = gb ? gb->result : "-", .flag = "", .regression = false};
        if (gb == nullptr) {
          r.flag = "missing in B";
          r.regression = true;
        } else if (ga == nullptr) {
          r.flag = "new in B";
          r.regression = gb->result == "FAIL";
          if (r.regression) r.flag = "new in B, FAIL";
        } else if (gb->result == "FAIL" && ga->result != "FAIL") {
          r.flag = "regression";
          r.regression = true;
        } else if (ga->result == "FAIL" && gb->result != "FAIL") {
          r.flag = "improved";
        }
        rows.push_back(std::move(r));
      }
      CompareFigures(key, gate, ga, gb, options, rows);
    }
  }
  return rows;
}

void WriteCompareText(const std::vector<CompareRow>& rows, const CompareOptions& options, std::ostream& out) {
  const std::vector<std::string> head = {"scenario", "gate", "figure", "A", "B", "delta", "flag"};
  std::vector<std::vector<std::string>> cells;
  for (const CompareRow& r : rows) cells.push_back({r.scenario, r.gate, r.figure, r.a_text, r.b_text, Delta(r), r.flag});
  std::vector<std::size_t> width(head.size());
  for (std::size_t i = 0; i < head.size(); ++i) width[i] = head[i].size();
  for (const auto& c : cells) {
    for (std::size_t i = 0; i < c.size(); ++i) width[i] = std::max(width[i], c[i].size());
  }
  auto line = [&](const std::vector<std::string>& c) {
    std::string s;
    for (std::size_t i = 0; i < c.size(); ++i) {
      s += c[i];
      if (i + 1 < c.size()) s += std::string(width[i] - c[i].size() + 2, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << "\n";
  };
  line(head);
  for (const auto& c : cells) line(c);
  out << Summary(rows, options) << "\n";
}

void WriteCompareMarkdown(const std::vector<CompareRow>& rows, const CompareOptions& options, std::ostream& out) {
  auto cell = [](std::string s) {
    std::string o;
    for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
    return o;
  };
  out << "| scenario | gate | figure | A | B | delta | flag |\n|---|---|---|---:|---:|---:|---|\n";
  for (const CompareRow& r : rows) {
    out << "| " << cell(r.scenario) << " | " << cell(r.gate) << " | " << cell(r.figure) << " | " << cell(r.a_text)
        << " | " << cell(r.b_text) << " | " << cell(Delta(r)) << " | "
        << (r.regression ? "**" + cell(r.flag) + "**" : cell(r.flag)) << " |\n";
  }
  out << "\n" << Summary(rows, options) << "\n";
}

void WriteCompareHtml(const std::vector<CompareRow>& rows, const CompareOptions& options, std::ostream& out) {
  using report::EscapeHtml;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>aftershock compare</title>\n"
         "<style>body{font-family:system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse;font-size:.85em}"
         "th,td{border:1px solid #ccc;padding:3px 6px}th{background:#f3f3f3}td.num{text-align:right}"
         "tr.regression td{background:#fbe3e3}tr.improved td{background:#e3f4e1}</style>\n</head>\n<body>\n"
         "<h1>aftershock compare</h1>\n<p class=\"summary\">"
      << EscapeHtml(Summary(rows, options))
      << "</p>\n<table class=\"compare\">\n<tr><th>scenario</th><th>gate</th><th>figure</th><th>A</th><th>B</th>"
         "<th>delta</th><th>flag</th></tr>\n";
  for (const CompareRow& r : rows) {
    const char* cls = r.regression ? "regression" : r.flag == "improved" ? "improved" : "same";
    out << "<tr class=\"" << cls << "\"><td>" << EscapeHtml(r.scenario) << "</td><td>" << EscapeHtml(r.gate)
        << "</td><td>" << EscapeHtml(r.figure) << "</td><td class=\"num\">" << EscapeHtml(r.a_text)
        << "</td><td class=\"num\">" << EscapeHtml(r.b_text) << "</td><td class=\"num\">" << EscapeHtml(Delta(r))
        << "</td><td>" << EscapeHtml(r.flag) << "</td></tr>\n";
  }
  out << "</table>\n</body>\n</html>\n";
}

int RunReportCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string usage =
      "usage: aftershock-report compare A B [--tolerance=10%] [--abs-tolerance=0] [--format=text|markdown|html]\n"
      "                                     [--fail-on-regression] [--output=FILE]\n"
      "       aftershock-report history --figure=[GATE.]FIGURE [--scenario=SET/NAME] [--svg=FILE] DIR...\n"
      "       aftershock-report summary SET_DIR [--artifact-name=NAME] [--artifact-url=URL]\n";
  if (!args.empty() && args[0] == "history") return RunHistory({args.begin() + 1, args.end()}, out, err);
  if (!args.empty() && args[0] == "summary") return RunSummary({args.begin() + 1, args.end()}, out, err);
  if (args.empty() || args[0] != "compare") {
    err << "aftershock-report: " << (args.empty() ? "no command given" : "unknown command '" + args[0] + "'") << "\n"
        << usage;
    return 2;
  }
  CompareOptions options;
  std::string format = "text";
  std::string output;
  bool fail_on_regression = false;
  std::vector<std::string> dirs;
  try {
    for (std::size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a.rfind("--tolerance=", 0) == 0) {
        options.tolerance = ParseTolerance("--tolerance", a.substr(12));
      } else if (a.rfind("--abs-tolerance=", 0) == 0) {
        options.abs_tolerance = ParseTolerance("--abs-tolerance", a.substr(16));
      } else if (a.rfind("--format=", 0) == 0) {
        format = a.substr(9);
        if (format != "text" && format != "markdown" && format != "html") {
          throw std::invalid_argument("--format: '" + format + "' is not text, markdown or html");
        }
      } else if (a.rfind("--output=", 0) == 0) {
        output = a.substr(9);
      } else if (a == "--fail-on-regression") {
        fail_on_regression = true;
      } else if (a.rfind("--", 0) == 0) {
        throw std::invalid_argument("unknown flag '" + a + "'");
      } else {
        dirs.push_back(a);
      }
    }
    if (dirs.size() != 2) throw std::invalid_argument("want two folders A and B, got " + std::to_string(dirs.size()));
  } catch (const std::invalid_argument& e) {
    err << "aftershock-report compare: " << e.what() << "\n" << usage;
    return 2;
  }
  std::map<std::string, ScenarioFigures> a, b;
  try {
    a = LoadRun(dirs[0]);
    b = LoadRun(dirs[1]);
  } catch (const std::exception& e) {
    err << "aftershock-report compare: " << e.what() << "\n";
    return 2;
  }
  for (std::size_t i = 0; i < 2; ++i) {
    if ((i == 0 ? a : b).empty()) {
      err << "aftershock-report compare: " << dirs[i] << " holds no scenario (no gates.json or verdict.txt below it)\n";
      return 2;
    }
  }
  const std::vector<CompareRow> rows = Compare(a, b, options);
  std::ostringstream text;
  if (format == "markdown") {
    WriteCompareMarkdown(rows, options, text);
  } else if (format == "html") {
    WriteCompareHtml(rows, options, text);
  } else {
    WriteCompareText(rows, options, text);
  }
  if (output.empty()) {
    out << text.str();
  } else {
    std::ofstream f(output, std::ios::binary | std::ios::trunc);
    f << text.str();
    f.close();
    if (!f) {
      err << "aftershock-report compare: cannot write " << output << "\n";
      return 2;
    }
    out << Summary(rows, options) << "; written to " << output << "\n";
  }
  const bool regressed = std::any_of(rows.begin(), rows.end(), [](const CompareRow& r) { return r.regression; });
  return fail_on_regression && regressed ? 1 : 0;
}

}  // namespace aftershock::report_tools
