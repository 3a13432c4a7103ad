#include "framework/report/artifacts_reporter.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace aftershock::report {
namespace {

bool EnsureDir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "aftershock: cannot create artifacts folder %s: %s\n", dir.c_str(), ec.message().c_str());
    return false;
  }
  return true;
}

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) std::fprintf(stderr, "aftershock: cannot write artifact %s\n", path.c_str());
}

}  // namespace

void ArtifactsReporter::OnTimelines(const ScenarioInfo& info, const ScenarioReport& report) {
  const std::filesystem::path dir = info.artifacts_dir;
  if (!EnsureDir(dir)) return;
  for (const Timeline& t : report.timelines) WriteFile(dir / t.file_name, t.csv);
}

void ArtifactsReporter::OnVerdict(const ScenarioInfo& info, const ScenarioReport& report) {
  const std::filesystem::path dir = info.artifacts_dir;
  if (!EnsureDir(dir)) return;
  WriteFile(dir / "stage-report.txt", report.stage_report_txt);
  WriteFile(dir / "stage-report.md", report.stage_report_md);
  WriteFile(dir / "stage-report.json", report.stage_report_json);
  WriteFile(dir / "gates.json", report.gates_json);
  if (!report.lost_promises_csv.empty()) WriteFile(dir / "lost-promises.csv", report.lost_promises_csv);
  WriteFile(dir / "verdict.txt", report.verdict);
  WriteFile(dir / "failures.txt", report.failures);
}

}  // namespace aftershock::report
