#include "framework/load/rate_profile.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace aftershock::load {
namespace {

// Seconds into a stage at which arrival k is due, or a negative value when it falls past the end.
double ArrivalTime(const StageSpec& s, std::uint64_t k) {
  const double r0 = s.rate_from;
  const double r1 = s.kind == StageKind::kLinearRamp ? s.rate_to : s.rate_from;
  const double d = s.duration_seconds;
  const double kk = static_cast<double>(k);
  double t;
  const double a = (r1 - r0) / (2.0 * d);  // N(t) = r0 t + a t^2
  if (std::abs(a) < 1e-12) {
    if (r0 <= 0) return -1;
    t = kk / r0;
  } else {
    const double disc = r0 * r0 + 4.0 * a * kk;
    if (disc < 0) return -1;
    t = (-r0 + std::sqrt(disc)) / (2.0 * a);
  }
  if (!(t < d) || t < 0) return -1;
  return t;
}

}  // namespace

RateProfile RateProfile::FromStages(const std::vector<StageSpec>& stages) {
  if (stages.empty()) throw std::invalid_argument("rate profile: no stages");
  RateProfile p;
  for (const StageSpec& s : stages) {
    const std::string who = "rate profile stage '" + s.name + "': ";
    if (!(s.duration_seconds > 0) || !std::isfinite(s.duration_seconds))
      throw std::invalid_argument(who + "duration must be > 0 seconds");
    if (!(s.rate_from >= 0) || !std::isfinite(s.rate_from)) throw std::invalid_argument(who + "rate must be >= 0");
    if (s.kind != StageKind::kConstant && s.kind != StageKind::kSoak && (!(s.rate_to >= 0) || !std::isfinite(s.rate_to)))
      throw std::invalid_argument(who + "target rate must be >= 0");
    if (s.kind == StageKind::kSpike) {
      if (!(s.spike_seconds > 0) || !(s.spike_at_seconds >= 0) ||
          !(s.spike_at_seconds + s.spike_seconds <= s.duration_seconds + 1e-9))
        throw std::invalid_argument(who + "the burst must start at >= 0 s, last > 0 s and end within the stage");
      const double plateaus[3][2] = {{s.rate_from, s.spike_at_seconds},
                                     {s.rate_to, s.spike_seconds},
                                     {s.rate_from, s.duration_seconds - s.spike_at_seconds - s.spike_seconds}};
      for (const auto& [rate, seconds] : plateaus) {
        if (seconds <= 1e-9) continue;
        StageSpec plateau = s;
        plateau.kind = StageKind::kConstant;
        plateau.rate_from = plateau.rate_to = rate;
        plateau.duration_seconds = seconds;
        p.stages_.push_back(plateau);
      }
      continue;
    }
    if (s.kind == StageKind::kSteps) {
      if (s.steps < 1) throw std::invalid_argument(who + "steps must be >= 1");
      for (int i = 0; i < s.steps; ++i) {
        StageSpec plateau = s;
        plateau.kind = StageKind::kConstant;
        plateau.duration_seconds = s.duration_seconds / s.steps;
        plateau.rate_from = s.steps == 1 ? s.rate_from : s.rate_from + (s.rate_to - s.rate_from) * i / (s.steps - 1);
        plateau.rate_to = plateau.rate_from;
        plateau.steps = 1;
        p.stages_.push_back(plateau);
      }
    } else {
      StageSpec copy = s;
      if (copy.kind == StageKind::kSoak) copy.kind = StageKind::kConstant;
      if (copy.kind == StageKind::kConstant) copy.rate_to = copy.rate_from;
      p.stages_.push_back(copy);
    }
  }
  double start = 0;
  for (const StageSpec& s : p.stages_) {
    p.stage_start_seconds_.push_back(start);
    start += s.duration_seconds;
  }
  return p;
}

RateProfile RateProfile::Constant(double rate_per_second, double seconds, std::string name) {
  return FromStages({StageSpec{.name = std::move(name), .kind = StageKind::kConstant, .rate_from = rate_per_second,
                               .rate_to = rate_per_second, .duration_seconds = seconds, .steps = 1}});
}

double RateProfile::TotalSeconds() const {
  return stages_.empty() ? 0 : stage_start_seconds_.back() + stages_.back().duration_seconds;
}

double RateProfile::PeakRate() const {
  double peak = 0;
  for (const StageSpec& s : stages_) peak = std::max({peak, s.rate_from, s.rate_to});
  return peak;
}

std::uint64_t RateProfile::ExpectedArrivals() const {
  std::uint64_t n = 0;
  Cursor c = Begin();
  Arrival a;
  // Bounded by the profile itself: every stage has a finite duration and rate.
  while (c.Next(a)) ++n;
  return n;
}

const std::string& RateProfile::StageAt(std::chrono::nanoseconds offset) const {
  static const std::string kNone;
  const double t = std::chrono::duration<double>(offset).count();
  for (std::size_t i = stages_.size(); i-- > 0;) {
    if (t >= stage_start_seconds_[i]) {
      return t < stage_start_seconds_[i] + stages_[i].duration_seconds ? stages_[i].name : kNone;
    }
  }
  return stages_.empty() ? kNone : stages_.front().name;
}

RateProfile::Cursor::Cursor(const RateProfile* profile, int shard, int shards) : profile_(profile) {
  if (shards < 1 || shard < 0 || shard >= shards) {
    throw std::invalid_argument("rate profile: shard " + std::to_string(shard) + " of " + std::to_string(shards) +
                                " is not a shard (0 <= shard < shards)");
  }
  shard_ = static_cast<std::uint64_t>(shard);
  shards_ = static_cast<std::uint64_t>(shards);
}

bool RateProfile::Cursor::Next(Arrival& out) {
  while (NextOfAll(out)) {
    if (out.sequence % shards_ == shard_) return true;
  }
  return false;
}

bool RateProfile::Cursor::NextOfAll(Arrival& out) {
  while (stage_ < profile_->stages_.size()) {
    const StageSpec& s = profile_->stages_[stage_];
    const double t = ArrivalTime(s, k_);
    if (t >= 0) {
      const double at = profile_->stage_start_seconds_[stage_] + t;
      out.sequence = sequence_++;
      out.offset = std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(at * 1e9)));
      out.stage = static_cast<int>(stage_);
      ++k_;
      return true;
    }
    ++stage_;
    k_ = 0;
  }
  return false;
}

}  // namespace aftershock::load
