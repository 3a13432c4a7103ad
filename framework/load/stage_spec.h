// StageSpec: one stage of a rate profile, as configured (plain data; see rate_profile.h for the
// schedule computed from a list of them).
//
//   StageSpec warmup{.name = "warm-up", .kind = StageKind::kConstant, .rate_from = 60, .duration_seconds = 30};
//   StageSpec ramp{.name = "ramp", .kind = StageKind::kLinearRamp, .rate_from = 60, .rate_to = 400,
//                  .duration_seconds = 20};
//   StageSpec steps{.name = "steps", .kind = StageKind::kSteps, .rate_from = 100, .rate_to = 400,
//                   .duration_seconds = 40, .steps = 4};   // 100, 200, 300, 400 per second, 10 s each
//   StageSpec spike{.name = "spike", .kind = StageKind::kSpike, .rate_from = 100, .rate_to = 1000,
//                   .duration_seconds = 60, .spike_at_seconds = 20, .spike_seconds = 10};  // 100, 1000, 100
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_STAGE_SPEC_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_STAGE_SPEC_H_

#include <string>

namespace aftershock::load {

enum class StageKind {
  kConstant,    // rate_from for the whole stage
  kLinearRamp,  // rate_from -> rate_to, linearly
  kSteps,       // `steps` equal plateaus from rate_from to rate_to
  kSpike,       // rate_from, a sudden burst of rate_to for spike_seconds from spike_at_seconds, then back
  kSoak,        // a long moderate constant load of rate_from (a constant stage, named for what it is for)
};

struct StageSpec {
  std::string name;
  StageKind kind = StageKind::kConstant;
  double rate_from = 0;  // arrivals per second
  double rate_to = 0;    // ramp/steps only
  double duration_seconds = 0;
  int steps = 1;  // steps only, >= 1
  double spike_at_seconds = 0;  // spike only: when the burst starts, from the stage start
  double spike_seconds = 0;     // spike only: how long the burst lasts
};

}  // namespace aftershock::load

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_STAGE_SPEC_H_
