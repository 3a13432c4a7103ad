// Fault: something a scenario breaks on purpose, with a guaranteed way back, and proof of both.
//
// A fault has Apply and Revert. ScopedFault applies on construction and reverts on destruction, so a
// fault is reverted when the scenario ends, fails, or throws; the chaos scheduler also reverts
// whatever is still applied when it is destroyed (and on SIGINT, which stops the run early).
//
// A fault also proves what it did: after each Apply the scheduler calls ConfirmApplied (did the kill
// hit, does the partition hang a probe, does the replica report the defect?) and after each Revert
// ConfirmReverted (is nothing left behind?), each bounded by a deadline. The default answers "not
// confirmed: this fault type does not confirm", which fails the fault-took-effect gate: a fault that
// cannot prove anything must say so explicitly with Confirmation::NotConfirmable("why"), and the
// reason shows in the verdict.
//
//   class StallService : public Fault {
//     std::string name() const override { return "stall"; }
//     void Apply() override { control.SetDefects(stall); }
//     void Revert() override { control.SetDefects({}); }
//     Confirmation ConfirmApplied(Clock::time_point deadline) override {
//       return PollUntil(deadline, [&]() -> std::optional<std::string> {
//         if (control.GetDefects().stall_until_ms_from_now() > 0) return "the target reports the stall";
//         return std::nullopt;
//       }, "the target never reported the stall");
//     }
//     Confirmation ConfirmReverted(Clock::time_point deadline) override { ... }
//   };
#ifndef AFTERSHOCK_FRAMEWORK_CHAOS_FAULT_H_
#define AFTERSHOCK_FRAMEWORK_CHAOS_FAULT_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "framework/common/run_clock.h"

namespace aftershock::chaos {

// The answer to "did the fault take effect?" (or, after a revert, "is nothing left behind?").
struct Confirmation {
  enum class Status {
    kConfirmed,       // the effect (or its absence after a revert) was observed
    kNotConfirmed,    // looked and did not see it within the deadline: fails fault-took-effect
    kNotConfirmable,  // the fault opted out explicitly, with a reason: passes, and the reason is shown
  };
  Status status = Status::kNotConfirmed;
  std::string detail;                       // what was observed, or why not
  std::optional<Clock::time_point> observed_at;  // when the effect was observed (kConfirmed)

  static Confirmation Confirmed(std::string detail, Clock::time_point at = Clock::now()) {
    return {Status::kConfirmed, std::move(detail), at};
  }
  static Confirmation NotConfirmed(std::string why) { return {Status::kNotConfirmed, std::move(why), std::nullopt}; }
  static Confirmation NotConfirmable(std::string reason) {
    return {Status::kNotConfirmable, std::move(reason), std::nullopt};
  }
};

namespace internal {
// Set by the chaos scheduler around a confirmation in its own thread: PollUntil gives up early once
// the run is stopped (Ctrl-C), instead of waiting out a long deadline (a failover's 90 s).
inline thread_local const std::atomic<bool>* confirm_stop = nullptr;
}  // namespace internal

// Polls `observe` (returns what it saw once the effect is there, std::nullopt until then) every
// `every` until `deadline`; the answer is Confirmed at the first observation, else NotConfirmed
// with `not_seen` plus the last exception's text, if any.
inline Confirmation PollUntil(Clock::time_point deadline, const std::function<std::optional<std::string>()>& observe,
                              const std::string& not_seen,
                              std::chrono::milliseconds every = std::chrono::milliseconds(100)) {
  std::string last_error;
  for (int attempt = 0; attempt < 100000; ++attempt) {  // bounded; the deadline ends it long before
    try {
      if (std::optional<std::string> seen = observe()) return Confirmation::Confirmed(*seen);
      last_error.clear();
    } catch (const std::exception& e) {
      last_error = e.what();
    }
    if (Clock::now() >= deadline) break;
    if (internal::confirm_stop != nullptr && internal::confirm_stop->load()) {
      return Confirmation::NotConfirmed(not_seen + " (the run was stopped while waiting)");
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(every, deadline - Clock::now()));
  }
  return Confirmation::NotConfirmed(not_seen + (last_error.empty() ? "" : " (last error: " + last_error + ")"));
}

class Fault {
 public:
  virtual ~Fault() = default;
  virtual std::string name() const = 0;
  // A short description for the chaos timeline ("stall 2000 ms", "kill replica b").
  virtual std::string detail() const { return ""; }
  virtual void Apply() = 0;
  // Must be safe to call after a failed Apply, and is called at most once per Apply.
  virtual void Revert() = 0;
  // Instant actions (a kill) know what they hit only afterwards: their "apply" event is recorded
  // once Apply returns, with the detail() it leaves.
  virtual bool record_after_apply() const { return false; }
  // Called once after each successful Apply (by the scheduler, in its thread): waits at most until
  // `deadline` for the fault's effect to show. The default is an honest "not confirmed".
  virtual Confirmation ConfirmApplied(Clock::time_point /*deadline*/) {
    return Confirmation::NotConfirmed("fault '" + name() +
                                      "' does not confirm its effect (implement ConfirmApplied, or return "
                                      "Confirmation::NotConfirmable(reason))");
  }
  // Called once after each Revert of a fault with a duration: waits at most until `deadline` for the
  // absence of residue.
  virtual Confirmation ConfirmReverted(Clock::time_point /*deadline*/) {
    return Confirmation::NotConfirmed("fault '" + name() +
                                      "' does not confirm its revert (implement ConfirmReverted, or return "
                                      "Confirmation::NotConfirmable(reason))");
  }
};

// A fault made of callables, for the common case. Without confirm callables (and without a
// not_confirmable reason) it fails fault-took-effect, as any fault that proves nothing.
//
//   auto stall = std::make_shared<LambdaFault>("stall", "2000 ms", LambdaFault::Callables{
//       .apply = [&] { control.SetDefects(stall); },
//       .revert = [&] { control.SetDefects({}); },
//       .confirm_applied = [&](Clock::time_point deadline) { return ...; },
//       .confirm_reverted = [&](Clock::time_point deadline) { return ...; }});
class LambdaFault : public Fault {
 public:
  using ConfirmFn = std::function<Confirmation(Clock::time_point deadline)>;
  struct Callables {
    std::function<void()> apply{};
    std::function<void()> revert{};  // may be empty (an instantaneous action)
    ConfirmFn confirm_applied{};   // empty: not confirmed (unless not_confirmable is set)
    ConfirmFn confirm_reverted{};
    // Optional: called right after apply returns; its answer replaces the detail (what it hit, e.g.
    // "killed worker 3"), and the timeline's apply event is recorded after the apply, with it.
    std::function<std::string()> detail_after_apply{};
    // Instead of confirm callables: why this fault cannot prove its effect (shown in the verdict).
    std::string not_confirmable{};
  };

  LambdaFault(std::string name, std::string detail, Callables callables)
      : name_(std::move(name)), detail_(std::move(detail)), c_(std::move(callables)) {}
  LambdaFault(std::string name, std::string detail, std::function<void()> apply, std::function<void()> revert)
      : LambdaFault(std::move(name), std::move(detail), Callables{.apply = std::move(apply), .revert = std::move(revert)}) {}

  std::string name() const override { return name_; }
  std::string detail() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return detail_;
  }
  // What the fault hit, once known (thread-safe; also set from detail_after_apply).
  void SetDetail(std::string detail) {
    std::lock_guard<std::mutex> lock(mu_);
    detail_ = std::move(detail);
  }
  void Apply() override {
    c_.apply();
    if (c_.detail_after_apply) SetDetail(c_.detail_after_apply());
  }
  void Revert() override {
    if (c_.revert) c_.revert();
  }
  bool record_after_apply() const override { return static_cast<bool>(c_.detail_after_apply); }
  Confirmation ConfirmApplied(Clock::time_point deadline) override {
    if (c_.confirm_applied) return c_.confirm_applied(deadline);
    if (!c_.not_confirmable.empty()) return Confirmation::NotConfirmable(c_.not_confirmable);
    return Fault::ConfirmApplied(deadline);
  }
  Confirmation ConfirmReverted(Clock::time_point deadline) override {
    if (c_.confirm_reverted) return c_.confirm_reverted(deadline);
    if (!c_.not_confirmable.empty()) return Confirmation::NotConfirmable(c_.not_confirmable);
    return Fault::ConfirmReverted(deadline);
  }

 private:
  std::string name_;
  mutable std::mutex mu_;
  std::string detail_;
  Callables c_;
};

// RAII: applied for exactly the lifetime of this object.
class ScopedFault {
 public:
  explicit ScopedFault(Fault& fault) : fault_(&fault) { fault_->Apply(); }
  ~ScopedFault() { Revert(); }
  ScopedFault(const ScopedFault&) = delete;
  ScopedFault& operator=(const ScopedFault&) = delete;
  void Revert() {
    if (fault_ != nullptr) std::exchange(fault_, nullptr)->Revert();
  }

 private:
  Fault* fault_;
};

}  // namespace aftershock::chaos

#endif  // AFTERSHOCK_FRAMEWORK_CHAOS_FAULT_H_
