#include "framework/config/internal/profile.h"

#include <algorithm>

#include "framework/config/internal/nearest_name.h"
#include "framework/config/internal/values.h"

namespace aftershock::config::internal {
namespace {

struct KindSpec {
  std::string_view name;
  load::StageKind kind;
  std::vector<std::string> keys;  // all required
};

const std::vector<KindSpec>& Kinds() {
  static const std::vector<KindSpec> kinds = {
      {"constant", load::StageKind::kConstant, {"name", "kind", "rate", "duration"}},
      {"ramp", load::StageKind::kLinearRamp, {"name", "kind", "from", "to", "duration"}},
      {"steps", load::StageKind::kSteps, {"name", "kind", "from", "to", "steps", "duration"}},
      {"spike", load::StageKind::kSpike, {"name", "kind", "from", "to", "at", "spike", "duration"}},
      {"soak", load::StageKind::kSoak, {"name", "kind", "rate", "duration"}},
  };
  return kinds;
}

load::StageSpec ParseStage(const std::string& path, const YAML::Node& node, std::size_t index,
                           const std::string& scenario, int fallback_line) {
  const std::string what =
      "profile stage " + std::to_string(index + 1) + " of scenario '" + scenario + "'";
  const CheckedMap stage(path, node, what, fallback_line,
                         std::vector<std::string>{"name", "kind", "rate", "from", "to", "steps", "at",
                                                  "spike", "duration"});
  load::StageSpec spec;
  spec.name = ReadName(path, stage.Require("name"));

  const MapEntry& kind_entry = stage.Require("kind");
  const std::string kind_text = ScalarText(path, kind_entry, "a stage kind");
  auto kind = std::find_if(Kinds().begin(), Kinds().end(),
                           [&](const KindSpec& k) { return k.name == kind_text; });
  if (kind == Kinds().end()) {
    Fail(path, kind_entry.line,
         "key 'kind': '" + kind_text + "' is not a stage kind (known: constant, ramp, steps, spike, soak)");
  }
  spec.kind = kind->kind;
  for (const MapEntry& entry : stage.entries()) {
    if (std::find(kind->keys.begin(), kind->keys.end(), entry.key) == kind->keys.end()) {
      Fail(path, entry.line,
           "key '" + entry.key + "' does not apply to a " + std::string(kind->name) + " stage (" +
               std::string(kind->name) + " takes: " + JoinNames(kind->keys) + ")");
    }
  }
  for (const std::string& key : kind->keys) stage.Require(key);

  if (spec.kind == load::StageKind::kConstant || spec.kind == load::StageKind::kSoak) {
    spec.rate_from = ReadValue(path, *stage.Find("rate"), ValueKind::kNumber, Bound::kNonNegative);
  } else {
    spec.rate_from = ReadValue(path, *stage.Find("from"), ValueKind::kNumber, Bound::kNonNegative);
    spec.rate_to = ReadValue(path, *stage.Find("to"), ValueKind::kNumber, Bound::kNonNegative);
  }
  if (spec.kind == load::StageKind::kSteps) {
    spec.steps = static_cast<int>(
        ReadValue(path, *stage.Find("steps"), ValueKind::kInteger, Bound::kPositive));
  }
  spec.duration_seconds =
      ReadValue(path, *stage.Find("duration"), ValueKind::kDuration, Bound::kPositive);
  if (spec.kind == load::StageKind::kSpike) {
    spec.spike_at_seconds = ReadValue(path, *stage.Find("at"), ValueKind::kDuration, Bound::kNonNegative);
    spec.spike_seconds = ReadValue(path, *stage.Find("spike"), ValueKind::kDuration, Bound::kPositive);
    if (spec.spike_at_seconds + spec.spike_seconds > spec.duration_seconds) {
      Fail(path, stage.Find("spike")->line,
           "key 'spike': the burst (at + spike) must end within the stage's duration");
    }
  }
  return spec;
}

}  // namespace

std::vector<load::StageSpec> ParseProfile(const std::string& path, const MapEntry& profile_entry,
                                          const std::string& scenario) {
  const YAML::Node& list = profile_entry.value;
  if (!list.IsSequence()) {
    const int line = list.IsNull() ? profile_entry.line : LineOf(list, profile_entry.line);
    Fail(path, line, "key 'profile': expected a list of stages, found " + DescribeNode(list));
  }
  if (list.size() == 0) {
    Fail(path, profile_entry.line, "key 'profile': the list of stages is empty (leave 'profile' out "
                                   "for one constant stage of rate_per_second for load_seconds)");
  }
  std::vector<load::StageSpec> stages;
  std::vector<int> lines;
  double peak = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const int line = LineOf(item, profile_entry.line);
    load::StageSpec stage = ParseStage(path, item, i, scenario, line);
    for (std::size_t j = 0; j < stages.size(); ++j) {
      if (stages[j].name == stage.name) {
        Fail(path, line, "key 'name': stage name '" + stage.name + "' appears twice in the profile "
                         "of scenario '" + scenario + "' (first at line " + std::to_string(lines[j]) + ")");
      }
    }
    peak = std::max({peak, stage.rate_from, stage.rate_to});
    stages.push_back(std::move(stage));
    lines.push_back(line);
  }
  if (peak <= 0) {
    Fail(path, profile_entry.line,
         "key 'profile': no stage offers load (every rate is 0) in scenario '" + scenario + "'");
  }
  return stages;
}

}  // namespace aftershock::config::internal
