// Fault: something a scenario breaks on purpose, with a guaranteed way back.
//
// A fault has Apply and Revert. ScopedFault applies on construction and reverts on destruction, so a
// fault is reverted when the scenario ends, fails, or throws; the chaos scheduler also reverts
// whatever is still applied when it is destroyed (and on SIGINT, which stops the run early).
//
//   class StallService : public Fault {
//     std::string name() const override { return "stall"; }
//     void Apply() override { control.SetDefects(stall); }
//     void Revert() override { control.SetDefects({}); }
//   };
#ifndef AFTERSHOCK_FRAMEWORK_CHAOS_FAULT_H_
#define AFTERSHOCK_FRAMEWORK_CHAOS_FAULT_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace aftershock::chaos {

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
};

// A fault made of two callables, for the common case.
class LambdaFault : public Fault {
 public:
  LambdaFault(std::string name, std::string detail, std::function<void()> apply, std::function<void()> revert)
      : name_(std::move(name)), detail_(std::move(detail)), apply_(std::move(apply)), revert_(std::move(revert)) {}
  std::string name() const override { return name_; }
  std::string detail() const override { return detail_; }
  void Apply() override { apply_(); }
  void Revert() override {
    if (revert_) revert_();
  }

 private:
  std::string name_, detail_;
  std::function<void()> apply_, revert_;
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
