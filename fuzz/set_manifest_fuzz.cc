// Fuzz target: the scenario-set manifest parser (framework/config/set_manifest.h). Any text either
// loads or throws ConfigError (the one error type of the configuration layer); what loads keeps the
// promises internal/manifest_checks.h lists. The file name given is "<set>.yaml" for the text's own
// top-level `set:` value, so mutations get past the set-name check and into the scenarios.
#include <string>

#include "framework/config/config_error.h"
#include "framework/config/set_manifest.h"
#include "fuzz/internal/fuzz_target.h"
#include "fuzz/internal/manifest_checks.h"

namespace config = aftershock::config;

namespace {

// The value of the first line "set: <value>" (trimmed), or "fuzz".
std::string SetNameOf(std::string_view text) {
  constexpr std::string_view kKey = "set:";
  std::size_t at = text.starts_with(kKey) ? 0 : text.find("\nset:");
  if (at == std::string_view::npos) return "fuzz";
  if (at != 0) ++at;
  std::string_view rest = text.substr(at + kKey.size());
  rest = rest.substr(0, rest.find('\n'));
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r')) rest.remove_suffix(1);
  if (rest.empty() || rest.find('/') != std::string_view::npos) return "fuzz";
  return std::string(rest);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = aftershock::fuzz::AsText(data, size);
  const config::Environment env;
  config::SetManifest manifest;
  try {
    manifest = config::ParseSetManifest(text, "manifests/sets/" + SetNameOf(text) + ".yaml", env);
  } catch (const config::ConfigError&) {
    return 0;  // the documented answer to a bad manifest
  }
  aftershock::fuzz::CheckLoadedManifest(manifest, env);
  return 0;
}
