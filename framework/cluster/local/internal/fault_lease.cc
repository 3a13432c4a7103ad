#include "framework/cluster/local/internal/fault_lease.h"

#include <stdexcept>

#include "framework/cluster/local/internal/action_result.h"

namespace aftershock::cluster::internal {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

}  // namespace

void FaultLease::Renew(const std::string& holder, milliseconds ttl) {
  if (holder.empty()) throw std::invalid_argument("a fault lease needs a holder name");
  if (ttl.count() <= 0) throw std::invalid_argument("fault lease of '" + holder + "': TTL must be > 0 ms");
  std::lock_guard<std::mutex> lock(mu_);
  const Clock::time_point now = now_();
  PruneLocked(now);
  // A real holder takes over the faults applied while nobody held a lease.
  if (holder != kUnheldHolder) holders_.erase(kUnheldHolder);
  holders_[holder] = Hold{ttl, now, now + ttl};
}

bool FaultLease::Release(const std::string& holder) {
  std::lock_guard<std::mutex> lock(mu_);
  PruneLocked(now_());
  if (holders_.erase(holder) == 0) return false;
  last_gone_ = "fault lease of '" + holder + "' released";
  return true;
}

void FaultLease::FaultApplied(milliseconds unheld_hold) {
  std::lock_guard<std::mutex> lock(mu_);
  const Clock::time_point now = now_();
  PruneLocked(now);
  faults_held_ = true;
  ++generation_;
  const bool only_unheld = holders_.empty() || (holders_.size() == 1 && holders_.count(kUnheldHolder) == 1);
  if (only_unheld) holders_[kUnheldHolder] = Hold{unheld_hold, now, now + unheld_hold};
}

std::optional<FaultLease::Due> FaultLease::DueForRevert() {
  std::lock_guard<std::mutex> lock(mu_);
  PruneLocked(now_());
  if (!faults_held_ || !holders_.empty()) return std::nullopt;
  return Due{generation_, last_gone_.empty() ? std::string("no fault lease holds them") : last_gone_};
}

void FaultLease::Reverted(std::uint64_t generation, const std::string& reason, const std::string& reverted,
                          std::int64_t unix_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  if (generation == generation_) faults_held_ = false;
  if (!reverted.empty()) {
    last_expiry_ = Expiry{unix_ms, reason, reverted};
    ++expiries_;
  }
}

std::vector<FaultLease::Holder> FaultLease::LiveHolders() {
  std::lock_guard<std::mutex> lock(mu_);
  const Clock::time_point now = now_();
  PruneLocked(now);
  std::vector<Holder> out;
  for (const auto& [name, hold] : holders_) {
    out.push_back(Holder{name, hold.ttl, duration_cast<milliseconds>(hold.expires - now)});
  }
  return out;
}

bool FaultLease::FaultsHeld() const {
  std::lock_guard<std::mutex> lock(mu_);
  return faults_held_;
}

std::optional<FaultLease::Expiry> FaultLease::LastExpiry() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_expiry_;
}

std::uint32_t FaultLease::Expiries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return expiries_;
}

void FaultLease::PruneLocked(Clock::time_point now) {
  for (auto it = holders_.begin(); it != holders_.end();) {
    if (now < it->second.expires) {
      ++it;
      continue;
    }
    last_gone_ = "fault lease of '" + it->first + "' not renewed within its TTL of " + Ms(it->second.ttl) +
                 " (last renewed " + Ms(duration_cast<milliseconds>(now - it->second.renewed)) + " ago)";
    it = holders_.erase(it);
  }
}

}  // namespace aftershock::cluster::internal
