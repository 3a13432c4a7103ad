// The soak mode of runner_benchmark: one long open-model run at one rate, RSS sampled every second,
// to show whether a scenario's memory stays flat over a long run (issue 12's memory goal).
//
// The run is the one a scenario makes: the per-second timeline, the promise ledger bounded in
// memory and the exhaustive streamed ledger file beside it. Prints RSS every 10 s and whether it
// stayed within 10 % after the warm-up; asserts nothing.
//
//   RunSoak({.seconds = 600, .rate = 5000, .warmup_seconds = 60}, target);
#ifndef AFTERSHOCK_BENCH_RUNNER_SOAK_H_
#define AFTERSHOCK_BENCH_RUNNER_SOAK_H_

#include "fixtures/targets/pseudonym/adapter/pseudonym_target.h"

namespace aftershock::bench {

struct SoakOptions {
  double seconds = 600;
  double rate = 5000;           // calls/s
  double warmup_seconds = 60;   // RSS is compared from this point of the run on
  int coalesce_us = 0;          // RunnerOptions::dispatch_coalesce
  bool compact = true;          // RunnerOptions::compact_final_seconds (false: the dense timeline)
};

// Runs the soak against `target` and prints its table and summary lines to stdout.
void RunSoak(const SoakOptions& options, fixtures::PseudonymTarget& target);

}  // namespace aftershock::bench

#endif  // AFTERSHOCK_BENCH_RUNNER_SOAK_H_
