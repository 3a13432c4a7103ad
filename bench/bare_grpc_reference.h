// The reference rows of runner_benchmark: a bare gRPC C++ callback client, closed loop and paced.
//
// The cost of the client library itself, with nothing of aftershock around it: `concurrency`
// lanes, each issuing Create (the same calls the runner's pseudonym workload makes: one fresh
// ClientContext with a 2 s deadline, a unique original value) and, from the completion callback,
// the next one at once; spread over `channels` round-robin channels like PseudonymTarget's. The
// figure that matters is CPU per call (getrusage of this process over the run: the runner's own
// threads are idle meanwhile), set beside the runner's in the benchmark's ratio line.
//
//   BareGrpcRow row = RunBareGrpcClosedLoop(server.address(), "aftershock", 2, 4, 5.0);
//   std::cout << row.cpu_seconds / row.calls * 1e6 << " us/call at " << row.calls / row.seconds << "/s\n";
#ifndef AFTERSHOCK_BENCH_BARE_GRPC_REFERENCE_H_
#define AFTERSHOCK_BENCH_BARE_GRPC_REFERENCE_H_

#include <cstdint>
#include <string>

namespace aftershock::bench {

struct BareGrpcRow {
  int concurrency = 0;
  double seconds = 0;          // from the first call to the last completion
  std::uint64_t calls = 0, ok = 0, failed = 0;
  double cpu_seconds = 0;      // this process, user + system
  double rate() const { return seconds > 0 ? static_cast<double>(calls) / seconds : 0; }
  double cpu_us_per_call() const { return calls > 0 ? cpu_seconds / static_cast<double>(calls) * 1e6 : 0; }
};

// Aborts the process when the lanes have not finished 10 s after `seconds` (they refer to the run's
// state, which cannot be freed under them).
BareGrpcRow RunBareGrpcClosedLoop(const std::string& address, const std::string& namespace_name, int channels,
                                  int concurrency, double seconds);

// The same calls paced at `rate` by one thread that sleeps until each call's time and starts it:
// the open model with nothing of aftershock's bookkeeping (no timeline, ledger, call state,
// shedding or retries), so the difference to the runner is what aftershock adds on top of the
// client library at the same rate. `concurrency` in the row is 0.
BareGrpcRow RunBareGrpcPaced(const std::string& address, const std::string& namespace_name, int channels,
                             double rate, double seconds);

}  // namespace aftershock::bench

#endif  // AFTERSHOCK_BENCH_BARE_GRPC_REFERENCE_H_
