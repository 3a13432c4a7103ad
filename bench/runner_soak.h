// The memory modes of runner_benchmark (issue 12's memory goal). The soak: one long open-model run
// at one rate, RSS sampled every second, to show whether a scenario's memory stays flat over a long
// run. The in-flight probe: heap bytes per gRPC call in flight.
//
// The run is the one a scenario makes: the per-second timeline, the promise ledger bounded in
// memory and the exhaustive streamed ledger file beside it. Prints RSS every 10 s and whether it
// stayed within 10 % after the warm-up; asserts nothing.
//
//   RunSoak({.seconds = 600, .rate = 5000, .warmup_seconds = 60}, target);
//   InFlightMemoryFit fit = ProbeGrpcInFlightMemory(target, server.address());
#ifndef AFTERSHOCK_BENCH_RUNNER_SOAK_H_
#define AFTERSHOCK_BENCH_RUNNER_SOAK_H_

#include <string>

#include "bench/internal/bench_support.h"
#include "fixtures/targets/pseudonym/adapter/pseudonym_target.h"

namespace aftershock::bench {

struct SoakOptions {
  double seconds = 600;
  double rate = 5000;           // calls/s
  double warmup_seconds = 60;   // RSS is compared from this point of the run on
  int coalesce_us = 0;          // RunnerOptions::dispatch_coalesce
  bool compact = true;          // RunnerOptions::compact_final_seconds (false: the dense timeline)
  int release_memory_after_pileup = 256;  // RunnerOptions::release_memory_after_pileup (0: never)
};

// Runs the soak against `target` and prints its table and summary lines to stdout.
void RunSoak(const SoakOptions& options, fixtures::PseudonymTarget& target);

// Heap bytes per gRPC call in flight: the server at `server_address` stalls every call for 1 s (its
// TEST-ONLY stall defect, cleared afterwards), the runner offers 2000/s for 2.5 s, so about 2000
// calls are in flight; what one more costs on the generator's side (bench_support's
// SampleHeapPerCall). Prints one line.
InFlightMemoryFit ProbeGrpcInFlightMemory(fixtures::PseudonymTarget& target, const std::string& server_address);

}  // namespace aftershock::bench

#endif  // AFTERSHOCK_BENCH_RUNNER_SOAK_H_
