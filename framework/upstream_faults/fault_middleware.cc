#include "framework/upstream_faults/fault_middleware.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <random>

namespace aftershock::upstream_faults {

struct FaultMiddleware::State {
  std::mutex mu;
  Rng rng;
};

const FaultSpec* FaultDecision::Find(FaultKind kind) const {
  const auto it = std::find_if(fired.begin(), fired.end(), [kind](const FaultSpec& f) { return f.kind == kind; });
  return it == fired.end() ? nullptr : &*it;
}

UpstreamFaultError::UpstreamFaultError(int code)
    : std::runtime_error("upstream fault: the upstream answers " + std::to_string(code)), code_(code) {}

FaultMiddleware::Rng FaultMiddleware::SeededRng(std::uint64_t seed) {
  auto engine = std::make_shared<std::mt19937_64>(seed);
  return [engine] { return std::uniform_real_distribution<double>(0.0, 1.0)(*engine); };
}

FaultMiddleware::Rng FaultMiddleware::RandomRng() {
  std::random_device device;
  return SeededRng((static_cast<std::uint64_t>(device()) << 32) ^ device());
}

FaultMiddleware FaultMiddleware::FromEnvironment(Rng rng) {
  const char* value = std::getenv(kChaosEnableVariable);
  bool enabled = false;
  if (value != nullptr) {
    const std::string_view v(value);
    if (v == "1") {
      enabled = true;
    } else if (v != "0") {
      throw std::invalid_argument(std::string(kChaosEnableVariable) + " must be unset, \"0\" or \"1\", got \"" +
                                  std::string(v) + "\"");
    }
  }
  return FaultMiddleware(enabled, std::move(rng));
}

FaultMiddleware::FaultMiddleware(bool enabled, Rng rng) : enabled_(enabled), state_(std::make_unique<State>()) {
  if (!rng) throw std::invalid_argument("FaultMiddleware: the rng is empty");
  state_->rng = std::move(rng);
}

FaultMiddleware::FaultMiddleware(FaultMiddleware&&) noexcept = default;
FaultMiddleware& FaultMiddleware::operator=(FaultMiddleware&&) noexcept = default;
FaultMiddleware::~FaultMiddleware() = default;

FaultDecision FaultMiddleware::Decide(std::string_view header_value) const {
  FaultDecision decision;
  if (!enabled_ || header_value.empty()) return decision;
  FaultSpecList list;
  try {
    list = ParseFaultSpec(header_value);
  } catch (const FaultSpecError& e) {
    decision.error = std::string(kChaosHeader) + ": " + e.what();
    return decision;
  }
  std::lock_guard lock(state_->mu);
  for (const auto& fault : list.faults) {
    // Every fault draws, fired or not, so one fault's rate never shifts another's draws.
    const double draw = state_->rng();
    if (!(draw < fault.rate)) continue;
    decision.fired.push_back(fault);
    if (fault.kind == FaultKind::kUpstreamLatency && decision.upstream_delay.count() == 0) {
      auto delay = fault.ms;
      if (fault.jitter.count() > 0) {
        const double u = state_->rng() * 2.0 - 1.0;  // [-1, 1)
        delay += std::chrono::milliseconds(std::llround(u * static_cast<double>(fault.jitter.count())));
      }
      decision.upstream_delay = std::max(delay, std::chrono::milliseconds(0));
    }
  }
  return decision;
}

FaultDecision FaultMiddleware::WithoutLatency(FaultDecision decision) {
  std::erase_if(decision.fired, [](const FaultSpec& f) { return f.kind == FaultKind::kUpstreamLatency; });
  decision.upstream_delay = std::chrono::milliseconds(0);
  return decision;
}

}  // namespace aftershock::upstream_faults
