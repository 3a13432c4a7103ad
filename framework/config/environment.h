// Environment: a value-type snapshot of environment variables, so that configuration code never reads
// the process environment behind the caller's back and tests can pass a plain map.
//
//   Environment env = Environment::FromProcess();           // only the RESILIENCE_* entries
//   std::optional<std::string> dir = env.Get("RESILIENCE_ARTIFACTS_DIR");
//   Environment fake = Environment::FromMap({{"RESILIENCE_LOAD_SECONDS", "30"}});
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_ENVIRONMENT_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_ENVIRONMENT_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aftershock::config {

// Every variable the configuration layer reads starts with this.
inline constexpr std::string_view kEnvironmentPrefix = "RESILIENCE_";

class Environment {
 public:
  Environment() = default;

  // Copies the RESILIENCE_* entries of the process environment (others are of no concern here).
  static Environment FromProcess();
  // Takes the entries as given (tests; tools that build an environment on purpose).
  static Environment FromMap(std::map<std::string, std::string> entries);

  // The value of `name`, or nullopt when it is not set (a variable set to "" is returned as "").
  std::optional<std::string> Get(std::string_view name) const;
  // Names that start with `prefix`, sorted.
  std::vector<std::string> NamesWithPrefix(std::string_view prefix) const;

 private:
  explicit Environment(std::map<std::string, std::string, std::less<>> entries)
      : entries_(std::move(entries)) {}

  std::map<std::string, std::string, std::less<>> entries_;
};

}  // namespace aftershock::config

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_ENVIRONMENT_H_
