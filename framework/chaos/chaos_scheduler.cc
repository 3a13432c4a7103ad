#include "framework/chaos/chaos_scheduler.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace aftershock::chaos {
namespace {

struct Step {
  Clock::time_point when;
  std::size_t index;
  bool apply;
};

}  // namespace

ChaosScheduler::ChaosScheduler(RunClock clock, ChaosTimeline& timeline) : clock_(clock), timeline_(timeline) {}

ChaosScheduler::~ChaosScheduler() { Abort(); }

void ChaosScheduler::Start(std::vector<TimedFault> plan) {
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (!plan[i].fault) throw std::invalid_argument("chaos plan: step " + std::to_string(i) + " has no fault");
    if (plan[i].repeat_pause.count() > 0 && plan[i].duration.count() > 0)
      throw std::invalid_argument("chaos plan: fault '" + plan[i].fault->name() +
                                  "' repeats in rounds, so it must be instantaneous (duration 0)");
    for (std::size_t j = 0; j < i; ++j) {
      if (!plan[i].database || !plan[j].database) continue;
      const auto end = [](const TimedFault& f) {
        return f.repeat_pause.count() > 0 ? std::max(f.at, f.repeat_until) : f.at + f.duration;
      };
      const auto a0 = plan[i].at, a1 = end(plan[i]);
      const auto b0 = plan[j].at, b1 = end(plan[j]);
      if (a0 < b1 && b0 < a1)
        throw std::invalid_argument("chaos plan: database faults '" + plan[j].fault->name() + "' and '" +
                                    plan[i].fault->name() + "' overlap; never two database faults at once");
    }
  }
  plan_ = std::move(plan);
  applied_.assign(plan_.size(), false);
  thread_ = std::thread([this] { Loop(); });
}

void ChaosScheduler::Loop() {
  // In this thread a stop cuts a confirmation's wait short; on the way out (RevertAllApplied, in
  // the caller's thread, after the stop) the residue check runs to its own, shorter bound.
  internal::confirm_stop = &stopping_;
  std::vector<Step> steps;
  for (std::size_t i = 0; i < plan_.size(); ++i) {
    steps.push_back({clock_.start() + plan_[i].at, i, true});
    if (plan_[i].duration.count() > 0) steps.push_back({clock_.start() + plan_[i].at + plan_[i].duration, i, false});
  }
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.when < b.when; });
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const Step& step = steps[s];
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_until(lock, step.when, [this] { return abort_; });
      if (abort_) {
        // Every apply not reached is a planned round that did not happen.
        for (std::size_t t = s; t < steps.size(); ++t) {
          if (!steps[t].apply) continue;
          const std::string& name = plan_[steps[t].index].fault->name();
          skipped_.push_back({name, rounds_[name] + 1, StoppedBeforeItLocked()});
        }
        break;
      }
    }
    const TimedFault& timed = plan_[step.index];
    Fault& fault = *timed.fault;
    // The previous confirmation of this fault is done before its next step (it is bounded by it).
    JoinPending(&fault);
    // A confirmation runs beside the plan and never holds up a step: it ends at the fault's own
    // next step (its revert, its next apply) at the latest.
    Clock::time_point next_same = Clock::time_point::max();
    for (std::size_t t = s + 1; t < steps.size(); ++t) {
      if (plan_[steps[t].index].fault.get() == &fault) {
        next_same = steps[t].when;
        break;
      }
    }
    int applies_before;  // the round number this apply step would be, for a skipped record
    {
      std::lock_guard<std::mutex> lock(mu_);
      applies_before = rounds_[fault.name()] + 1;
    }
    try {
      if (step.apply && timed.repeat_pause.count() > 0) {
        RunRounds(step.index);
      } else if (step.apply) {
        if (timed.gate) timed.gate();
        ApplyOnce(step.index, next_same, true);
      } else {
        RevertAndConfirm(step.index, next_same);
      }
    } catch (const std::exception& e) {
      const std::string message =
          std::string(step.apply ? "apply" : "revert") + " of fault '" + fault.name() + "' failed: " + e.what();
      timeline_.Record(Clock::now(), "error", fault.name(), message);
      std::lock_guard<std::mutex> lock(mu_);
      errors_.push_back(message);
      // The apply (or the next round) did not happen: its health gate or the apply itself threw.
      if (step.apply) {
        const int round = timed.repeat_pause.count() > 0 ? rounds_[fault.name()] + 1 : applies_before;
        skipped_.push_back({fault.name(), round, std::string("not applied: ") + e.what()});
      }
    }
  }
  JoinPending(nullptr);
  internal::confirm_stop = nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  cv_.notify_all();
}

void ChaosScheduler::ApplyOnce(std::size_t index, Clock::time_point not_after, bool in_background) {
  Fault& fault = *plan_[index].fault;
  const bool after = fault.record_after_apply();
  // An instantaneous fault (a kill) is an "action": its span is that moment, recovery counts from it.
  const char* event = plan_[index].duration.count() > 0 ? "apply" : "action";
  const Clock::time_point applied_at = Clock::now();
  // The confirm timeout counts from applied_at, the instant the record's after_seconds counts from:
  // a deadline taken from an earlier now() gave the confirmation less than its whole timeout.
  const Clock::time_point confirm_by = std::min(applied_at + plan_[index].confirm_timeout, not_after);
  if (!after) timeline_.Record(applied_at, event, fault.name(), fault.detail());
  int round;
  {
    std::lock_guard<std::mutex> lock(mu_);
    applied_[index] = plan_[index].duration.count() > 0;
    round = ++rounds_[fault.name()];
  }
  fault.Apply();
  // Stamped when the apply started, like the confirmation's "after N s" (which counts from there):
  // stamped when Apply returned, a kill that took 0.5 s to find its target read 0.5 s later on the
  // timeline than the failover its confirmation timed.
  if (after) timeline_.Record(applied_at, event, fault.name(), fault.detail());
  if (in_background) {
    ConfirmInBackground(index, false, applied_at, confirm_by, round);
  } else {
    Confirm(index, false, applied_at, confirm_by, round);
  }
}

void ChaosScheduler::RevertAndConfirm(std::size_t index, Clock::time_point not_after) {
  bool was_applied;
  int round;
  {
    std::lock_guard<std::mutex> lock(mu_);
    was_applied = applied_[index];
    applied_[index] = false;
    round = rounds_[plan_[index].fault->name()];
  }
  if (!was_applied) return;
  Fault& fault = *plan_[index].fault;
  const Clock::time_point reverted_at = Clock::now();
  const Clock::time_point confirm_by = std::min(reverted_at + plan_[index].confirm_timeout, not_after);
  fault.Revert();
  timeline_.Record(reverted_at, "revert", fault.name(), fault.detail());
  ConfirmInBackground(index, true, reverted_at, std::max(confirm_by, Clock::now()), round);
}

void ChaosScheduler::ConfirmInBackground(std::size_t index, bool revert, Clock::time_point since,
                                         Clock::time_point deadline, int round) {
  pending_.emplace_back(plan_[index].fault.get(), std::thread([this, index, revert, since, deadline, round] {
                          internal::confirm_stop = &stopping_;
                          Confirm(index, revert, since, deadline, round);
                        }));
}

void ChaosScheduler::JoinPending(const Fault* fault) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (fault != nullptr && it->first != fault) {
      ++it;
      continue;
    }
    it->second.join();
    it = pending_.erase(it);
  }
}

void ChaosScheduler::Confirm(std::size_t index, bool revert, Clock::time_point since, Clock::time_point deadline,
                             int round) {
  Fault& fault = *plan_[index].fault;
  Confirmation c;
  try {
    c = revert ? fault.ConfirmReverted(deadline) : fault.ConfirmApplied(deadline);
  } catch (const std::exception& e) {
    c = Confirmation::NotConfirmed(std::string("the confirmation failed: ") + e.what());
  }
  const Clock::time_point now = Clock::now();
  const Clock::time_point at =
      c.status == Confirmation::Status::kConfirmed && c.observed_at ? std::clamp(*c.observed_at, since, now) : now;
  ConfirmationRecord r;
  r.fault = fault.name();
  r.revert = revert;
  r.status = c.status;
  r.after_seconds = std::chrono::duration<double>(at - since).count();
  r.seconds = std::chrono::duration<double>(clock_.Since(at)).count();
  char after[48];
  std::snprintf(after, sizeof after, " after %.1f s", r.after_seconds);
  const char* event = "";
  switch (c.status) {
    case Confirmation::Status::kConfirmed:
      event = revert ? "reverted-clean" : "confirmed";
      r.detail = c.detail + after;
      break;
    case Confirmation::Status::kNotConfirmed:
      event = revert ? "residue" : "unconfirmed";
      r.detail = c.detail.empty() ? std::string("no reason given") : c.detail;
      break;
    case Confirmation::Status::kNotConfirmable:
      event = revert ? "revert-unconfirmable" : "unconfirmable";
      r.detail = c.detail.empty() ? std::string("no reason given") : c.detail;
      break;
  }
  r.round = std::max(1, round);
  timeline_.Record(at, event, r.fault, r.detail);
  std::lock_guard<std::mutex> lock(mu_);
  confirmations_.push_back(std::move(r));
}

void ChaosScheduler::RunRounds(std::size_t index) {
  const TimedFault& f = plan_[index];
  const Clock::time_point until = clock_.start() + f.repeat_until;
  const auto seconds = [this](Clock::time_point t) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", std::chrono::duration<double>(t - clock_.start()).count());
    return std::string(text);
  };
  // Not one round: the first never started. Named, so fault-took-effect can say why.
  const auto none_happened = [&](const std::string& why) {
    std::lock_guard<std::mutex> lock(mu_);
    skipped_.push_back({f.fault->name(), rounds_[f.fault->name()] + 1, why});
  };
  if (Clock::now() >= until) {
    none_happened("its repeat window is empty: the first round was due at " + seconds(clock_.start() + f.at) +
                  ", the window ends at " + seconds(until));
    return;
  }
  // Bounded: every round takes at least repeat_pause, and rounds stop at repeat_until.
  for (int round = 0; round < 100000 && Clock::now() < until; ++round) {
    if (f.gate) f.gate();
    {
      std::lock_guard<std::mutex> lock(mu_);
      const bool stop = abort_ || Clock::now() >= until;
      if (stop && round == 0) {
        skipped_.push_back({f.fault->name(), rounds_[f.fault->name()] + 1,
                            abort_ ? StoppedBeforeItLocked()
                                   : "its health gate let it through at " + seconds(Clock::now()) +
                                         ", after its repeat window ended at " + seconds(until)});
      }
      if (stop) return;
    }
    // The pause counts from the apply, so confirming a round (a failover) does not stretch the plan.
    const Clock::time_point applied_at = Clock::now();
    // Rounds confirm in line: the next round's gate waits for the system anyway.
    ApplyOnce(index, Clock::time_point::max(), false);
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_until(lock, applied_at + f.repeat_pause, [this] { return abort_; })) return;
  }
}

void ChaosScheduler::RevertAllApplied() {
  for (std::size_t i = plan_.size(); i-- > 0;) {
    bool was_applied;
    {
      std::lock_guard<std::mutex> lock(mu_);
      was_applied = applied_[i];
      applied_[i] = false;
    }
    if (!was_applied) continue;
    try {
      int round;
      {
        std::lock_guard<std::mutex> lock(mu_);
        round = rounds_[plan_[i].fault->name()];
      }
      const Clock::time_point reverted_at = Clock::now();
      plan_[i].fault->Revert();
      timeline_.Record(reverted_at, "revert", plan_[i].fault->name(), plan_[i].fault->detail());
      // Bounded tighter than a planned revert: this runs on the way out (an interrupt, a throw).
      Confirm(i, true, reverted_at,
              Clock::now() + std::min<Clock::duration>(plan_[i].confirm_timeout, std::chrono::seconds(15)), round);
    } catch (const std::exception& e) {
      const std::string message = "revert of fault '" + plan_[i].fault->name() + "' failed: " + e.what();
      timeline_.Record(Clock::now(), "error", plan_[i].fault->name(), message);
      std::lock_guard<std::mutex> lock(mu_);
      errors_.push_back(message);
    }
  }
}

void ChaosScheduler::Finish(std::chrono::milliseconds timeout) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (thread_.joinable() && !cv_.wait_for(lock, timeout, [this] { return done_; })) {
      char text[96];
      std::snprintf(text, sizeof text, "the plan had not ended %.0f s after the load: Finish's timeout",
                    std::chrono::duration<double>(timeout).count());
      stop_reason_ = text;
    }
    abort_ = true;
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  RevertAllApplied();
}

void ChaosScheduler::Abort() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_reason_.empty()) stop_reason_ = "the run was stopped early: an abort or an interrupt";
    abort_ = true;
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  RevertAllApplied();
}

std::vector<std::string> ChaosScheduler::errors() const {
  std::lock_guard<std::mutex> lock(mu_);
  return errors_;
}

std::string ChaosScheduler::StoppedBeforeItLocked() const {
  return "the scheduler stopped before it (" + (stop_reason_.empty() ? std::string("stopped") : stop_reason_) + ")";
}

std::vector<SkippedRound> ChaosScheduler::skipped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return skipped_;
}

std::vector<ConfirmationRecord> ChaosScheduler::confirmations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return confirmations_;
}

}  // namespace aftershock::chaos
