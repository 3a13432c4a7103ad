// The memory modes of runner_benchmark (issue 12's memory goal). The soak: one long open-model run
// at one rate, RSS sampled every second, to show whether a scenario's memory stays flat over a long
// run. The in-flight probe: heap bytes per gRPC call in flight. With stall_at_seconds, the soak
// also makes the server hold a second's calls once, to show what RSS does after such a pile-up.
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
  // A pile-up on purpose: at this second of the run the server (at server_address, its TEST-ONLY
  // stall window) holds every call that arrives within the next second until that second ends, so
  // about `rate` calls pile up and then drain at once. 0: none.
  double stall_at_seconds = 0;
  std::string server_address;
  int row_every_seconds = 10;   // a table row every N seconds
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
