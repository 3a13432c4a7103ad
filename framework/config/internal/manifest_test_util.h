// Test helpers for manifest tests: a valid head (set + every default) and error capture.
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_MANIFEST_TEST_UTIL_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_MANIFEST_TEST_UTIL_H_

#include <string>

#include "framework/config/set_manifest.h"

namespace aftershock::config::testing {

inline constexpr char kPath[] = "manifests/sets/pr.yaml";

// Lines 1-15; the first scenario line appended after it is line 16.
inline constexpr char kHead[] = R"(set: pr
defaults:
  rate_per_second: 100
  load_seconds: 10
  settle_seconds: 1
  call_deadline_seconds: 2
  max_in_flight: 500
  ledger_capacity: 1000
  max_outage_seconds: 5
  max_unavailable_seconds: 8
  max_recovery_seconds: 9
  verify_concurrency: 4
  timeout_seconds: 60
  max_latency_p99_seconds: 0.5
scenarios:
)";

// Lines 16-17.
inline constexpr char kBaseline[] = R"(  - name: baseline
    test: PrSuite.DISABLED_Baseline
)";

// A scenario with a three-stage load profile (constant, ramp, steps) and a timeout that fits it.
inline constexpr char kProfiled[] = R"(  - name: ramping
    test: PrSuite.DISABLED_Ramping
    timeout_seconds: 10m
    profile:
      - {name: warm-up, kind: constant, rate: 60, duration: 30s}
      - {name: ramp, kind: ramp, from: 60, to: 400, duration: 20s}
      - {name: steps, kind: steps, from: 100, to: 400, steps: 4, duration: 40s}
)";

inline std::string Manifest(const std::string& scenarios) { return std::string(kHead) + scenarios; }

// `text` with the first `from` replaced by `to` (the test fails loudly when `from` is absent).
inline std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  std::size_t at = text.find(from);
  if (at == std::string::npos) return "<'" + from + "' not in text>";
  return text.replace(at, from.size(), to);
}

inline std::string ErrorOf(const std::string& yaml, const Environment& env = Environment(),
                           const std::string& path = kPath) {
  try {
    ParseSetManifest(yaml, path, env);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace aftershock::config::testing

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_MANIFEST_TEST_UTIL_H_
