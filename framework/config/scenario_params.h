// ScenarioParams: the scenario-specific scalars of a manifest entry (`params:`), each with the file and
// line it came from. The manifest cannot know which keys a scenario reads, so reads are tracked: after a
// scenario ran, Unread() lists the keys it never asked for (most likely typos), and the caller fails or
// warns on them.
//
//   const ScenarioParams& p = config.params;
//   double stall_at = p.GetDuration("stall_at_seconds");      // ConfigError when missing or malformed
//   double rate = p.FindDouble("internal_rate").value_or(0);   // absent is fine, malformed is not
//   for (const std::string& key : p.Unread()) ADD_FAILURE() << p.SourceOf(key) << ": unread param " << key;
//
// Copies share one read record (a copy handed to a fixture marks reads on the manifest's original), and
// the record is safe to use from several threads.
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_SCENARIO_PARAMS_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_SCENARIO_PARAMS_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace aftershock::config {

class ScenarioParams {
 public:
  struct Value {
    std::string text;  // the scalar as written
    int line = 0;      // 1-based line in `path`
  };

  ScenarioParams();
  // `scenario` and `line` (of the scenario entry) make the "missing key" message precise.
  ScenarioParams(std::string path, std::string scenario, int line, std::map<std::string, Value> values);

  // Throw ConfigError naming file:line:key when the key is missing or its value is malformed.
  double GetDouble(std::string_view key) const;
  double GetDuration(std::string_view key) const;  // seconds; "4", "500ms", "2m"
  long long GetInteger(std::string_view key) const;
  std::string GetString(std::string_view key) const;

  // nullopt when absent; ConfigError when present but malformed.
  std::optional<double> FindDouble(std::string_view key) const;
  std::optional<double> FindDuration(std::string_view key) const;
  std::optional<std::string> FindString(std::string_view key) const;

  bool Has(std::string_view key) const;      // does not count as a read
  std::vector<std::string> Keys() const;     // sorted
  std::vector<std::string> Unread() const;   // keys never read by Get*/Find*, sorted
  std::string SourceOf(std::string_view key) const;  // "file:line" of the key, or of the scenario

 private:
  struct ReadRecord {
    std::mutex mutex;
    std::set<std::string, std::less<>> keys;
  };

  const Value* Lookup(std::string_view key) const;  // marks the key read
  [[noreturn]] void FailMissing(std::string_view key) const;
  [[noreturn]] void FailMalformed(std::string_view key, const Value& value, std::string_view what) const;

  std::string path_;
  std::string scenario_;
  int line_ = 0;
  std::map<std::string, Value, std::less<>> values_;
  std::shared_ptr<ReadRecord> read_;
};

}  // namespace aftershock::config

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_SCENARIO_PARAMS_H_
