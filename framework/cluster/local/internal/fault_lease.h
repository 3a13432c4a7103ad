// FaultLease: the supervisor's dead-man's switch for the faults it holds (link faults,
// replication-link faults, replica defects, asynchronous replication, cordons).
//
// Holders (a scenario process, the CLI) renew a named lease with a TTL; every fault applied is
// marked held. Once no holder is live any more - each one released it or stopped renewing - the
// held faults are due for revert: the supervisor reverts everything and records what it did. A
// fault applied while nobody holds a lease gets an implicit holder (kUnheldHolder) for a fixed
// time (until a real holder takes the lease over), so nothing the supervisor applies lasts for ever. Pure logic on an injectable clock; the
// caller serializes nothing (it has its own mutex).
//
//   FaultLease lease;                                      // or FaultLease(fake_clock)
//   lease.Renew("ha_suite pid 42", std::chrono::seconds(5));
//   lease.FaultApplied(std::chrono::minutes(2));
//   ...                                                    // the holder dies, 5 s pass
//   if (auto due = lease.DueForRevert()) {                 // "lease of 'ha_suite pid 42' expired ..."
//     ... revert every fault ...
//     lease.Reverted(due->generation, summary_of_what_was_reverted, unix_ms);
//   }
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_FAULT_LEASE_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_FAULT_LEASE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace aftershock::cluster::internal {

class FaultLease {
 public:
  using Clock = std::chrono::steady_clock;
  using Now = std::function<Clock::time_point()>;

  // The holder a fault gets when it is applied while no lease is held.
  static constexpr const char* kUnheldHolder = "faults applied without a fault lease";

  struct Holder {
    std::string name;
    std::chrono::milliseconds ttl{0};
    std::chrono::milliseconds remaining{0};
  };
  struct Due {
    std::uint64_t generation = 0;
    std::string reason;  // who went away, and how
  };
  struct Expiry {
    std::int64_t unix_ms = 0;
    std::string reason;
    std::string reverted;  // what was reverted (or the errors reverting it)
  };

  explicit FaultLease(Now now = Clock::now) : now_(std::move(now)) {}

  // Holds `holder`'s lease for `ttl` from now (a new holder, or a renewal that replaces its expiry);
  // it takes over faults held by kUnheldHolder. std::invalid_argument for an empty name or a TTL <= 0.
  void Renew(const std::string& holder, std::chrono::milliseconds ttl);
  // Ends `holder`'s lease now; false when it held none (expired already or never held).
  bool Release(const std::string& holder);
  // A fault was applied: held from now on. With no live holder, kUnheldHolder holds it for
  // `unheld_hold` (renewed by every such fault).
  void FaultApplied(std::chrono::milliseconds unheld_hold);
  // Held faults and no live holder: they are due for revert (expired holders are dropped first).
  std::optional<Due> DueForRevert();
  // The revert for `generation` ran: the faults are no longer held unless one was applied since.
  // A non-empty `reverted` is recorded as the last expiry (and counted).
  void Reverted(std::uint64_t generation, const std::string& reason, const std::string& reverted,
                std::int64_t unix_ms);

  std::vector<Holder> LiveHolders();
  bool FaultsHeld() const;
  std::optional<Expiry> LastExpiry() const;
  std::uint32_t Expiries() const;

 private:
  struct Hold {
    std::chrono::milliseconds ttl;
    Clock::time_point renewed;
    Clock::time_point expires;
  };
  // Drops expired holders, remembering the last one as the reason.
  void PruneLocked(Clock::time_point now);

  Now now_;
  mutable std::mutex mu_;
  std::map<std::string, Hold> holders_;
  bool faults_held_ = false;
  std::uint64_t generation_ = 0;  // bumped by every FaultApplied
  std::string last_gone_;         // how the last holder went away
  std::optional<Expiry> last_expiry_;
  std::uint32_t expiries_ = 0;
};

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_FAULT_LEASE_H_
