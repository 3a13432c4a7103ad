#include "tools/loadgen/worker_log.h"

#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "tools/loadgen/worker_run.h"

namespace aftershock::loadgen {
namespace {

constexpr std::string_view kBegin = "##aftershock-loadgen BEGIN ";
constexpr std::string_view kEnd = "##aftershock-loadgen END ";

// The only names a log may make us write: nothing it says can reach another path.
bool IsWorkerFileName(const std::string& name) {
  static const std::regex kName("worker-[0-9]{1,6}\\.(health|ledger|timeline)");
  return std::regex_match(name, kName);
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

struct OpenBlock {
  std::string prefix{};
  std::string file{};
  std::size_t begin_line = 0;
  std::string text{};
  std::size_t lines = 0;
};

}  // namespace

void EmitWorkerFiles(std::ostream& out, const std::filesystem::path& dir, int worker) {
  // The timeline last, as on disk: a log cut before its END has no complete timeline block.
  std::vector<std::filesystem::path> files = {HealthPath(dir, worker)};
  if (std::filesystem::exists(LedgerPath(dir, worker))) files.push_back(LedgerPath(dir, worker));
  files.push_back(TimelinePath(dir, worker));
  for (const std::filesystem::path& path : files) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    const std::string name = path.filename().string();
    out << kBegin << name << "\n";
    std::size_t lines = 0;
    for (std::string line; std::getline(in, line);) {
      out << line << "\n";
      ++lines;
    }
    out << kEnd << name << " lines=" << lines << "\n";
  }
  out.flush();
}

RecoveredFiles RecoverWorkerFiles(std::string_view log, const std::string& source, const std::filesystem::path& dir) {
  RecoveredFiles result;
  std::optional<OpenBlock> open;
  const auto cut = [&](const std::string& why) {
    result.problems.push_back(source + ":" + std::to_string(open->begin_line) + ": " + open->file + " cut short (" + why +
                              "): not recovered");
    open.reset();
  };
  const std::vector<std::string_view> lines = Lines(log);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const auto begin = line.find(kBegin);
    if (begin != std::string_view::npos) {
      if (open) cut("another block began at line " + std::to_string(i + 1));
      const std::string file(line.substr(begin + kBegin.size()));
      if (!IsWorkerFileName(file)) {
        result.problems.push_back(source + ":" + std::to_string(i + 1) + ": '" + file +
                                  "' is not a worker file name (worker-<k>.health, .ledger or .timeline): skipped");
        continue;
      }
      open = OpenBlock{.prefix = std::string(line.substr(0, begin)), .file = file, .begin_line = i + 1};
      continue;
    }
    if (!open) continue;
    if (line.substr(0, open->prefix.size()) != open->prefix) continue;  // another process's line
    const std::string_view body = line.substr(open->prefix.size());
    if (body.rfind(kEnd, 0) == 0) {
      const std::string expected = std::string(kEnd) + open->file + " lines=" + std::to_string(open->lines);
      if (body != expected) {
        cut("its END says '" + std::string(body) + "' after " + std::to_string(open->lines) + " lines");
        continue;
      }
      WriteAtomically(dir / open->file, [&](std::ostream& out) { out << open->text; });
      result.written.push_back(open->file);
      open.reset();
      continue;
    }
    open->text.append(body).append("\n");
    ++open->lines;
  }
  if (open) cut("the log ended first");
  return result;
}

}  // namespace aftershock::loadgen
