#include "framework/report/html_reporter.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace aftershock::report {
namespace {

bool WriteFile(const std::filesystem::path& path, const std::string& text) {
  // Written beside and renamed, so a browser (or a concurrent scenario's index) never sees half a page.
  const std::filesystem::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::fprintf(stderr, "aftershock: cannot write %s\n", tmp.c_str());
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::fprintf(stderr, "aftershock: cannot rename %s to %s: %s\n", tmp.c_str(), path.c_str(), ec.message().c_str());
    return false;
  }
  return true;
}

// An exclusive flock on a file, held for the object's lifetime (closing the descriptor releases it).
class SetLock {
 public:
  explicit SetLock(const std::filesystem::path& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) {
      std::fprintf(stderr, "aftershock: cannot lock %s (writing the index unlocked)\n", path.c_str());
    }
  }
  ~SetLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  SetLock(const SetLock&) = delete;
  SetLock& operator=(const SetLock&) = delete;

 private:
  int fd_;
};

std::string Slurp(const std::filesystem::path& path, bool* exists) {
  std::ifstream in(path, std::ios::binary);
  *exists = static_cast<bool>(in);
  std::ostringstream s;
  if (in) s << in.rdbuf();
  return s.str();
}

int CountFailLines(const std::string& verdict) {
  int red = 0;
  std::istringstream lines(verdict);
  for (std::string line; std::getline(lines, line);) red += line.rfind("FAIL ", 0) == 0 ? 1 : 0;
  return red;
}

// The names of verdict.txt's red gates ("FAIL <name>: <message>").
std::set<std::string> RedGates(const std::string& verdict) {
  std::set<std::string> names;
  std::istringstream lines(verdict);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("FAIL ", 0) != 0) continue;
    const std::size_t colon = line.find(": ", 5);
    names.insert(line.substr(5, colon == std::string::npos ? std::string::npos : colon - 5));
  }
  return names;
}

}  // namespace

std::vector<IndexEntry> ScanSetFolder(const std::string& set_dir) {
  std::vector<IndexEntry> entries;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(set_dir, ec)) {
    std::error_code ec2;
    if (!e.is_directory(ec2) || !std::filesystem::exists(e.path() / "report.html", ec2)) continue;
    IndexEntry entry;
    entry.scenario = e.path().filename().string();
    bool has_verdict = false, has_failures = false, has_gates = false;
    const std::string verdict = Slurp(e.path() / "verdict.txt", &has_verdict);
    const std::string failures = Slurp(e.path() / "failures.txt", &has_failures);
    entry.red = CountFailLines(verdict);
    entry.verdict = !has_verdict ? "?"
                                 : std::string(JudgeRun(RedGates(verdict), NonEmptyLines(failures),
                                                        ExpectedRedOfGatesJson(Slurp(e.path() / "gates.json", &has_gates))));
    entries.push_back(std::move(entry));
  }
  if (ec) std::fprintf(stderr, "aftershock: cannot list %s: %s\n", set_dir.c_str(), ec.message().c_str());
  std::sort(entries.begin(), entries.end(), [](const IndexEntry& a, const IndexEntry& b) { return a.scenario < b.scenario; });
  return entries;
}

void HtmlReporter::OnVerdict(const ScenarioInfo& info, const ScenarioReport& report) {
  if (info.artifacts_dir.empty()) return;  // a run without a folder (e.g. a unit test's): nothing to write into
  std::filesystem::path dir = std::filesystem::path(info.artifacts_dir).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "<root>/pr/probe/"
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "aftershock: cannot create artifacts folder %s: %s\n", dir.c_str(), ec.message().c_str());
    return;
  }
  if (!WriteFile(dir / "report.html", RenderHtmlReport(info, report))) return;

  // Scenarios of one set finishing at the same moment (ctest -j) take turns: each scans and writes
  // the index under the set's lock, so the last one's index lists both.
  const SetLock lock(dir.parent_path() / ".index.lock");
  std::vector<IndexEntry> entries = ScanSetFolder(dir.parent_path().string());
  const std::string self = dir.filename().string();
  for (IndexEntry& e : entries) {
    if (e.scenario != self) continue;
    e.red = CountFailLines(report.verdict);
    e.verdict = report.judgement.empty() ? (report.all_passed ? "PASS" : "FAIL") : report.judgement;
  }
  WriteFile(dir.parent_path() / "index.html", RenderSetIndex(info.set, entries));
}

}  // namespace aftershock::report
