// RateProfile: the wall-clock arrival schedule of an open-model run, computed from its stages.
//
// Arrival k of a stage happens when the integral of the stage's rate reaches k, so a linear ramp
// thickens smoothly and a constant stage of r/s for d s yields ceil(r * d) arrivals. Arrivals are
// points in time relative to the run's start; the runner never merges or skips them.
//
//   auto profile = RateProfile::FromStages({{.name = "load", .rate_from = 200, .duration_seconds = 10}});
//   RateProfile::Cursor cursor = profile.Begin();
//   Arrival a;
//   while (cursor.Next(a)) { /* a.offset, a.stage, a.sequence */ }
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_RATE_PROFILE_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_RATE_PROFILE_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/load/stage_spec.h"

namespace aftershock::load {

struct Arrival {
  std::uint64_t sequence = 0;         // 0, 1, 2, ... across the whole profile
  std::chrono::nanoseconds offset{};  // intended send time, from the run's start
  int stage = 0;                      // index into RateProfile::stages()
};

class RateProfile {
 public:
  // Validates every stage (rates >= 0, duration > 0, steps >= 1) and throws std::invalid_argument
  // naming the stage otherwise. Steps are expanded into constant plateaus here.
  static RateProfile FromStages(const std::vector<StageSpec>& stages);
  static RateProfile Constant(double rate_per_second, double seconds, std::string name = "load");

  // Expanded stages (a steps stage becomes one constant stage per plateau, all with the steps' name).
  const std::vector<StageSpec>& stages() const { return stages_; }
  double TotalSeconds() const;
  double PeakRate() const;
  std::uint64_t ExpectedArrivals() const;
  // Stage name at an offset into the run ("" past the end).
  const std::string& StageAt(std::chrono::nanoseconds offset) const;

  class Cursor {
   public:
    // Shard `shard` of `shards` yields only the arrivals whose sequence % shards == shard, with their
    // sequence numbers and times unchanged: N workers sharing one schedule and one start time
    // together issue exactly the arrivals of one generator. Throws std::invalid_argument for a bad
    // shard.
    explicit Cursor(const RateProfile* profile, int shard = 0, int shards = 1);
    // Fills `out` with the next arrival; false when the profile is exhausted.
    bool Next(Arrival& out);

   private:
    bool NextOfAll(Arrival& out);
    const RateProfile* profile_;
    std::uint64_t shard_ = 0, shards_ = 1;
    std::size_t stage_ = 0;
    std::uint64_t k_ = 0;  // arrival index within the stage
    std::uint64_t sequence_ = 0;
  };
  Cursor Begin(int shard = 0, int shards = 1) const { return Cursor(this, shard, shards); }

 private:
  std::vector<StageSpec> stages_;
  std::vector<double> stage_start_seconds_;
};

}  // namespace aftershock::load

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_RATE_PROFILE_H_
