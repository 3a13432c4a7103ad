#include "framework/load/blocking_workload.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <utility>

namespace aftershock::load {

struct BlockingWorkload::State : CallState {
  BlockingCallContext context;  // of the last attempt
  BlockingCallResult result;    // of the last attempt
};

BlockingWorkload::BlockingWorkload(BlockingWorkloadOptions options) : options_(std::move(options)) {
  if (!options_.call) throw std::invalid_argument("BlockingWorkload: `call` is not set");
  if (options_.workers < 1) {
    throw std::invalid_argument("BlockingWorkload: workers must be at least 1, got " + std::to_string(options_.workers));
  }
  threads_.reserve(static_cast<std::size_t>(options_.workers));
  try {
    for (int i = 0; i < options_.workers; ++i) threads_.emplace_back([this] { WorkerLoop(); });
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& t : threads_) t.join();
    throw;
  }
}

BlockingWorkload::~BlockingWorkload() {
  std::deque<Job> never_run;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    never_run.swap(queue_);
  }
  work_ready_.notify_all();
  // Normally empty (the runner drains before the workload goes): these were never sent.
  for (Job& job : never_run) job.done(kCodeGeneratorPoolTimeout);
  for (std::thread& t : threads_) t.join();
}

std::unique_ptr<CallState> BlockingWorkload::NewCall(std::uint64_t sequence) {
  auto state = std::make_unique<State>();
  state->context.sequence = sequence;
  return state;
}

void BlockingWorkload::Issue(CallState& call, const Attempt& attempt, AttemptDone done) {
  Job job;
  job.state = &static_cast<State&>(call);
  job.context.sequence = attempt.sequence;
  job.context.attempt = attempt.number;
  job.context.deadline = attempt.deadline;
  job.context.wall_deadline = attempt.wall_deadline;
  job.enqueued = Clock::now();
  job.done = done;
  job.state->context = job.context;
  job.state->result = BlockingCallResult{kCodeGeneratorPoolTimeout, {}};
  bool rejected = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queue_.size() >= options_.queue_capacity + static_cast<std::size_t>(idle_)) {
      // Full: the attempt is never sent. Only a mutex, never a wait: the dispatcher goes on.
      ++stats_.rejected_queue_full;
      rejected = true;
    } else {
      job.waited = static_cast<std::size_t>(idle_) <= queue_.size();
      if (job.waited) ++stats_.waited_for_worker;
      queue_.push_back(std::move(job));
      stats_.peak_queue = std::max(stats_.peak_queue, queue_.size());
    }
  }
  if (rejected) {
    done(kCodeGeneratorPoolTimeout);
    return;
  }
  work_ready_.notify_one();
}

std::optional<Clock::time_point> BlockingWorkload::LastSent() const {
  const Clock::rep ticks = last_sent_.load(std::memory_order_relaxed);
  if (ticks == 0) return std::nullopt;
  return Clock::time_point(Clock::duration(ticks));
}

void BlockingWorkload::WorkerLoop() {
  while (true) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++idle_;
      work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      --idle_;
      if (queue_.empty()) return;  // stopping, nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    RunJob(job);
  }
}

void BlockingWorkload::RunJob(Job& job) {
  const Clock::time_point start = Clock::now();
  const auto waited = std::chrono::duration_cast<std::chrono::nanoseconds>(start - job.enqueued);
  if (job.waited) {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.wait_total += waited;
    stats_.wait_max = std::max(stats_.wait_max, waited);
  }
  if (start >= job.context.deadline) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.timed_out_in_queue;
    }
    job.done(kCodeGeneratorPoolTimeout);  // last: the state may be gone after this
    return;
  }
  BlockingCallContext& ctx = job.context;
  {
    const Clock::rep now = Clock::now().time_since_epoch().count();
    Clock::rep seen = last_sent_.load(std::memory_order_relaxed);
    while (now > seen && !last_sent_.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
  }
  ctx.timeout = std::max(std::chrono::milliseconds(1),
                         std::chrono::ceil<std::chrono::milliseconds>(ctx.deadline - start));
  BlockingCallResult result;
  bool threw = false;
  std::string what;
  try {
    result = options_.call(ctx);
  } catch (const std::exception& e) {
    threw = true;
    what = e.what();
  } catch (...) {
    threw = true;
    what = "unknown exception";
  }
  const Clock::time_point end = Clock::now();
  bool overran = false;
  if (threw) {
    result = BlockingCallResult{kCodeUnknown, {}};
  } else if (end > ctx.deadline && result.code != kCodeDeadlineExceeded) {
    // The caller would have given up at the deadline: what came later is not an answer it saw.
    overran = true;
    result.code = kCodeDeadlineExceeded;
  }
  bool waited_then_timed_out = false;
  if (result.code == kCodeDeadlineExceeded && job.waited) {
    // Part of the deadline was spent in the generator's own queue.
    waited_then_timed_out = true;
    result.code = kCodeGeneratorPoolWaitDeadline;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.started;
    if (overran) ++stats_.overran_deadline;
    if (waited_then_timed_out) ++stats_.waited_then_timed_out;
    if (threw && stats_.exceptions++ == 0) stats_.first_exception = what;
  }
  const CallCode code = result.code;
  job.state->context = ctx;
  job.state->result = std::move(result);
  job.done(code);  // last: the state may be gone after this
}

void BlockingWorkload::OnFinal(CallState& call, const FinalOutcome& outcome) {
  if (!options_.on_final) return;
  auto& state = static_cast<State&>(call);
  options_.on_final(state.context, state.result, outcome);
}

BlockingWorkloadStats BlockingWorkload::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

GeneratorWaitStats BlockingWorkload::GeneratorWaits() const {
  std::lock_guard<std::mutex> lock(mu_);
  GeneratorWaitStats w;
  w.waited = stats_.waited_for_worker + stats_.rejected_queue_full;
  w.timed_out = stats_.timed_out_in_queue + stats_.rejected_queue_full;
  w.waited_then_timed_out = stats_.waited_then_timed_out;
  w.total_wait = stats_.wait_total;
  w.max_wait = stats_.wait_max;
  return w;
}

}  // namespace aftershock::load
