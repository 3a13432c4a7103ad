#include "tools/report/summary.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "framework/report/scenario_reporter.h"
#include "tools/report/compare.h"

namespace aftershock::report_tools {
namespace {

namespace fs = std::filesystem;

// A Markdown table cell: pipes escaped, HTML not interpreted, one line.
std::string Cell(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') {
      o += "\\|";
    } else if (c == '<') {
      o += "&lt;";
    } else if (c == '&') {
      o += "&amp;";
    } else if (c == '\n' || c == '\r') {
      o += ' ';
    } else {
      o += c;
    }
  }
  return o;
}

// The text of a code span in a table cell: shown as it is (no entity is decoded there), so only
// the pipe and the backtick are replaced.
std::string CodeCell(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : c == '`' ? std::string("'") : std::string(1, c);
  return o;
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// The non-empty lines of a file (none when it is missing).
std::vector<std::string> Lines(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return report::NonEmptyLines(text.str());
}

}  // namespace

int WriteSetSummary(const std::string& set_dir, const SummaryOptions& options, std::ostream& out, std::ostream& err) {
  std::map<std::string, ScenarioFigures> run;
  try {
    run = LoadRun(set_dir);
  } catch (const std::exception& e) {
    err << "aftershock-report summary: " << e.what() << "\n";
    return -1;
  }
  if (run.empty()) {
    err << "aftershock-report summary: " << set_dir << " holds no scenario (no sub-folder with verdict.txt)\n";
    return -1;
  }
  const fs::path root = fs::path(set_dir).lexically_normal();
  const std::string set = (root.filename().empty() ? root.parent_path() : root).filename().string();

  struct Row {
    std::string scenario;
    int red_gates = 0;
    std::vector<std::string> other_reasons;
    std::string judgement;  // report::JudgeRun: PASS, FAIL, RED-AS-EXPECTED
  };
  std::vector<Row> rows;
  int red = 0, as_expected = 0;
  for (const auto& [key, s] : run) {
    Row r{key, 0, {}, ""};
    std::set<std::string> red_names;
    for (const auto& [name, g] : s.gates) {
      if (g.result == "FAIL") red_names.insert(name);
    }
    r.red_gates = static_cast<int>(red_names.size());
    const std::vector<std::string> failures = Lines(root / key / "failures.txt");
    for (const std::string& line : failures) {
      bool of_a_gate = false;
      for (const std::string& name : red_names) of_a_gate |= line.rfind(name + ": ", 0) == 0;
      if (!of_a_gate) r.other_reasons.push_back(line);
    }
    r.judgement = std::string(report::JudgeRun(red_names, failures, s.expected_red));
    red += r.judgement == report::kJudgementFail ? 1 : 0;
    as_expected += r.judgement == report::kJudgementRedAsExpected ? 1 : 0;
    rows.push_back(std::move(r));
  }

  out << "## aftershock set " << Cell(set) << ": " << (red == 0 ? "PASS" : "FAIL") << " (" << red << " of "
      << rows.size() << " scenario(s) red";
  if (as_expected > 0) out << ", " << as_expected << " red as expected: a seeded defect caught";
  out << ")\n\n";
  out << "| scenario | verdict | red gates | report |\n|---|---|---:|---|\n";
  for (const Row& r : rows) {
    const std::string verdict = r.judgement == report::kJudgementFail          ? "**FAIL**"
                                : r.judgement == report::kJudgementRedAsExpected ? "red as expected"
                                                                                 : "PASS";
    out << "| " << Cell(r.scenario) << " | " << verdict << " | " << r.red_gates << " | `"
        << CodeCell(set + "/" + r.scenario + "/report.html") << "` |\n";
  }
  bool any_failed_gate = false;
  for (const auto& [key, s] : run) {
    for (const auto& [name, g] : s.gates) {
      if (g.result != "FAIL") continue;
      if (!any_failed_gate) {
        out << "\n### Failing gates\n\n| scenario | gate | figure and budget | figures |\n|---|---|---|---|\n";
        any_failed_gate = true;
      }
      std::string figures;
      for (const auto& [f, v] : g.figures) figures += (figures.empty() ? "" : ", ") + f + " = " + Num(v);
      out << "| " << Cell(key) << " | " << Cell(name) << (s.expected_red.count(name) ? " (expected red)" : "")
          << " | " << Cell(g.message) << " | " << Cell(figures) << " |\n";
    }
  }
  bool any_other = false;
  for (const Row& r : rows) {
    for (const std::string& reason : r.other_reasons) {
      if (!any_other) out << "\n### Other reasons\n\n";
      any_other = true;
      out << "- " << Cell(r.scenario) << ": " << Cell(reason) << "\n";
    }
  }
  out << "\nThe HTML reports: `" << CodeCell(set) << "/index.html` and `" << CodeCell(set) << "/<scenario>/report.html`";
  if (!options.artifact_name.empty()) out << " in the artifact `" << CodeCell(options.artifact_name) << "`";
  if (!options.artifact_url.empty()) out << " ([the run's artifacts](" << options.artifact_url << "))";
  out << " (docs/report.md).\n";
  return red;
}

int RunSummary(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string usage = "usage: aftershock-report summary SET_DIR [--artifact-name=NAME] [--artifact-url=URL]\n";
  SummaryOptions options;
  std::vector<std::string> dirs;
  for (const std::string& a : args) {
    if (a.rfind("--artifact-name=", 0) == 0) {
      options.artifact_name = a.substr(16);
    } else if (a.rfind("--artifact-url=", 0) == 0) {
      options.artifact_url = a.substr(15);
      if (options.artifact_url.find_first_of(" ()") != std::string::npos) {
        err << "aftershock-report summary: --artifact-url '" << options.artifact_url
            << "' has a space or a parenthesis, which would break the Markdown link\n";
        return 2;
      }
    } else if (a.rfind("--", 0) == 0) {
      err << "aftershock-report summary: unknown flag '" << a << "'\n" << usage;
      return 2;
    } else {
      dirs.push_back(a);
    }
  }
  if (dirs.size() != 1) {
    err << "aftershock-report summary: want one set folder, got " << dirs.size() << "\n" << usage;
    return 2;
  }
  const int red = WriteSetSummary(dirs[0], options, out, err);
  return red < 0 ? 2 : 0;
}

}  // namespace aftershock::report_tools
