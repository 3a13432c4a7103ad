// What the manifest and environment fuzz targets check on a manifest that loaded: the promises
// set_manifest.h and scenario_config.h make about a resolved ScenarioConfig (every knob in its
// documented range and finite, a never-empty profile, lookups that find each scenario), and every
// param read through each ScenarioParams accessor, where only a ConfigError may come back.
//
//   aftershock::fuzz::CheckLoadedManifest(ParseSetManifest(text, path, env), env);
#ifndef AFTERSHOCK_FUZZ_INTERNAL_MANIFEST_CHECKS_H_
#define AFTERSHOCK_FUZZ_INTERNAL_MANIFEST_CHECKS_H_

#include "framework/config/environment.h"
#include "framework/config/set_manifest.h"

namespace aftershock::fuzz {

// Aborts (fuzz_target.h Require) naming the broken promise.
void CheckLoadedManifest(const config::SetManifest& manifest, const config::Environment& env);

}  // namespace aftershock::fuzz

#endif  // AFTERSHOCK_FUZZ_INTERNAL_MANIFEST_CHECKS_H_
