// ConfigError: the one exception type of the configuration layer. Its message always says where the
// bad value came from: "file:line: key 'k' ..." for a manifest, "RESILIENCE_X='v': ..." for the
// environment. Callers catch it at the top (gtest main, tools) and print what() unchanged.
//
//   try { auto set = LoadSetManifest(path, Environment::FromProcess()); }
//   catch (const aftershock::config::ConfigError& e) { std::cerr << e.what() << "\n"; return 2; }
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_CONFIG_ERROR_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_CONFIG_ERROR_H_

#include <stdexcept>
#include <string>

namespace aftershock::config {

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace aftershock::config

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_CONFIG_ERROR_H_
