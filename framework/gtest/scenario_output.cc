#include "framework/gtest/scenario_output.h"

#include "framework/gtest/internal/plain_name.h"
#include "framework/report/markers.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace aftershock::gtest_integration {
namespace {

using internal::IsPlainName;

void RequirePlainName(std::string_view what, std::string_view value) {
  if (!IsPlainName(value)) {
    throw std::invalid_argument("aftershock: bad " + std::string(what) + " '" + std::string(value) +
                                "': expected one word of letters, digits, '.', '_' or '-'");
  }
}

void WriteArtifact(const std::filesystem::path& dir, const std::string& file_name, const std::string& csv) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "aftershock: cannot create artifacts folder %s: %s\n", dir.c_str(), ec.message().c_str());
    return;
  }
  const std::filesystem::path path = dir / file_name;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << csv;
  file.close();
  if (!file) std::fprintf(stderr, "aftershock: cannot write artifact %s\n", path.c_str());
}

}  // namespace

ScenarioOutput::ScenarioOutput(std::string artifacts_dir) : artifacts_dir_(std::move(artifacts_dir)) {}

void ScenarioOutput::Begin(std::string set, std::string scenario) {
  if (set.empty()) set = std::string(kAdHocSetName);
  RequirePlainName("set name", set);
  RequirePlainName("scenario name", scenario);
  End();
  std::lock_guard<std::mutex> lock(mu_);
  in_scenario_ = true;
  set_ = std::move(set);
  scenario_ = std::move(scenario);
  timelines_.clear();
}

void ScenarioOutput::AddTimeline(std::string file_name, CsvWriter write_csv) {
  RequirePlainName("timeline file name", file_name);
  if (!write_csv) throw std::invalid_argument("aftershock: timeline " + file_name + " has no writer");
  std::lock_guard<std::mutex> lock(mu_);
  if (!in_scenario_) {
    throw std::logic_error("aftershock: AddTimeline(" + file_name + ") outside a scenario: call Begin() first");
  }
  timelines_.push_back(Timeline{std::move(file_name), std::move(write_csv), false});
}

void ScenarioOutput::Emit(std::ostream& out) {
  // Take the pending timelines under the lock, write them without it: the writers are user code.
  std::vector<Timeline> pending;
  std::string set;
  std::string scenario;
  std::filesystem::path dir;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!in_scenario_) return;
    for (Timeline& t : timelines_) {
      if (t.emitted) continue;
      t.emitted = true;
      pending.push_back(Timeline{t.file_name, t.write_csv, false});
    }
    set = set_;
    scenario = scenario_;
    dir = ArtifactsDirForLocked();
  }
  for (const Timeline& t : pending) {
    std::ostringstream csv;
    std::size_t rows = 0;
    try {
      rows = t.write_csv(csv);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "aftershock: timeline %s of set=%s scenario=%s could not be written: %s\n",
                   t.file_name.c_str(), set.c_str(), scenario.c_str(), e.what());
      continue;
    }
    std::string text = std::move(csv).str();
    if (!text.empty() && text.back() != '\n') text += '\n';
    report::WriteMarkedTimeline(out, t.file_name, set, scenario, text, rows);
    WriteArtifact(dir, t.file_name, text);
  }
}

void ScenarioOutput::End(std::ostream& out) {
  Emit(out);
  std::lock_guard<std::mutex> lock(mu_);
  in_scenario_ = false;
  set_.clear();
  scenario_.clear();
  timelines_.clear();
}

std::string ScenarioOutput::ArtifactsDirFor() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ArtifactsDirForLocked();
}

std::string ScenarioOutput::ArtifactsDirForLocked() const {
  return (std::filesystem::path(artifacts_dir_) / set_ / scenario_).string();
}

bool ScenarioOutput::in_scenario() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_scenario_;
}

namespace {
// See CurrentScenarioOutput() in the header for why this one pointer is process-wide.
ScenarioOutput* installed_output = nullptr;
}  // namespace

ScenarioOutput& CurrentScenarioOutput() {
  if (installed_output == nullptr) {
    std::fprintf(stderr,
                 "aftershock: no ScenarioOutput is installed; link the suite binary with aftershock_gtest_main "
                 "(not GTest::gtest_main)\n");
    std::abort();
  }
  return *installed_output;
}

ScopedCurrentScenarioOutput::ScopedCurrentScenarioOutput(ScenarioOutput& output) : previous_(installed_output) {
  installed_output = &output;
}

ScopedCurrentScenarioOutput::~ScopedCurrentScenarioOutput() { installed_output = previous_; }

void TimelineListener::OnTestEnd(const testing::TestInfo& /*test_info*/) { CurrentScenarioOutput().End(); }

}  // namespace aftershock::gtest_integration
