// What the benchmark programs share: strict flag values, CPU accounting of this process's
// children, fixed-decimal figures and a scratch directory. Benchmarks print figures; these helpers
// only parse, measure and format.
//
//   double seconds = ParsePositiveDouble("seconds", "2.5");          // FlagError on "0", "x", ""
//   std::vector<double> rates = ParseRates("1000,5000");
//   for (const FlagArg& flag : SplitFlags(argc, argv, &help)) ...     // flag.name, flag.value
//   std::optional<double> cpu = ProcessCpuSeconds(server_pid);       // user + system, all threads
//   std::cout << Fixed(2.345, 1);                                    // "2.3"
//   TempDir dir;                                                     // removed with `dir`
#ifndef AFTERSHOCK_BENCH_INTERNAL_BENCH_SUPPORT_H_
#define AFTERSHOCK_BENCH_INTERNAL_BENCH_SUPPORT_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "framework/process/scratch_dir.h"

namespace aftershock::bench {

// A bad flag value or an unknown flag; the message names the flag.
class FlagError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

double ParsePositiveDouble(const std::string& name, const std::string& text, bool allow_zero = false);
int ParsePositiveInt(const std::string& name, const std::string& text);
// "true"/"1" or "false"/"0"; anything else is a FlagError naming the flag.
bool ParseBool(const std::string& name, const std::string& text);
// Comma-separated positive rates; at least one.
std::vector<double> ParseRates(const std::string& text);

// One command-line flag `--name=value`; dashes in the name are underscores here.
struct FlagArg {
  std::string name;
  std::string value;
};
// The benchmarks' command lines: every argument is `--name=value`, or `--help`/`-h`, which sets
// *help. Anything else is a FlagError naming the argument.
std::vector<FlagArg> SplitFlags(int argc, char** argv, bool* help);

// The machine-readable last line of a benchmark that has a peer (issue 12's format), e.g.
//   ratio generator_cpu_per_call=41.2 reference=bare-grpc reference_cpu_per_call=33.0 ratio=1.248 held_rate=10000 reference_rate=7400
// CPU per call in microseconds (no unit in the line) with one decimal, the ratio with three, rates in whole calls/s.
struct RatioLine {
  double generator_cpu_us_per_call = 0;
  std::string reference;  // "bare-grpc" or "wrk"
  double reference_cpu_us_per_call = 0;
  double held_rate = 0;
  double reference_rate = 0;
};
std::string FormatRatioLine(const RatioLine& line);

// Issue 12's bar for "the schedule held" at a rate, one rule for every benchmark: achieved/offered
// >= 0.999 of the nominal rate, dispatch lag p99 < 1 ms, no arrival shed, the runner not calling
// itself generator-limited and the run not cut off.
struct HeldFigures {
  double rate = 0;           // nominal (offered) rate of the row
  double achieved_rate = 0;  // GeneratorHealth::achieved_rate
  double lag_p99_ms = 0;
  unsigned long long shed = 0;
  bool generator_limited = false;
  bool cut_off = false;
};
inline constexpr double kHeldAchievedRatio = 0.999;
inline constexpr double kHeldLagP99Ms = 1.0;
inline constexpr char kHeldRule[] = "ach/off >= 0.999, lag p99 < 1 ms, no shed, not generator-limited, not cut off";
bool ScheduleHeld(const HeldFigures& f);
// The same for a runner's result (load::RunResult, a template so that this library needs no link to
// the runner) at its nominal `rate`: a cut-off run's health counts only what was reached.
template <typename RunResult>
bool ScheduleHeld(const RunResult& result, double rate) {
  return ScheduleHeld(HeldFigures{.rate = rate,
                                  .achieved_rate = result.health.achieved_rate,
                                  .lag_p99_ms = result.health.lag_p99_ms,
                                  .shed = result.shed,
                                  .generator_limited = result.health.generator_limited,
                                  .cut_off = result.interrupted});
}
// Issue 12's "highest rate held": the schedule must hold at every rate up to it, so this is the
// highest rate that held with every lower rate held too, not merely the highest row that held (on
// a busy machine a low rate can miss the bar while a higher one makes it). `held[i]` says whether
// `rates[i]` held; the rates may come in any order. The index of that rate, or nullopt when the
// lowest rate did not hold (or there are no rates).
std::optional<std::size_t> HighestRateHeldThroughout(const std::vector<double>& rates, const std::vector<bool>& held);

// `value` with exactly `decimals` decimals ("%.*f").
std::string Fixed(double value, int decimals);

// A fresh directory under the system's temporary directory, removed with everything in it when
// the owner goes (process::ScratchDir, with the path as a std::filesystem::path for `/`). Throws
// std::runtime_error naming the path when it cannot be made.
class TempDir {
 public:
  TempDir() : dir_(process::ScratchDir::Create("aftershock-bench")) {}
  std::filesystem::path path() const { return dir_.path(); }

 private:
  process::ScratchDir dir_;
};

// Heap bytes per call in flight: (calls in flight, heap bytes in use) samples, fitted by least
// squares; the slope is what one more call in flight costs. Zero with fewer than two distinct
// in-flight counts.
struct InFlightMemoryFit {
  double bytes_per_call = 0;
  std::int64_t peak_in_flight = 0;
  std::size_t samples = 0;
};
InFlightMemoryFit FitHeapPerCall(const std::vector<std::pair<double, double>>& points);
// Heap bytes the program has in use: glibc's mallinfo2().uordblks (blocks below the mmap threshold,
// 128 KiB by default), or AddressSanitizer's allocator's count in an ASan build.
std::size_t HeapBytesInUse();
// Runs `run` on this thread while another samples `in_flight()` and HeapBytesInUse() every 20 ms
// (at most 1000 samples), then fits them.
InFlightMemoryFit SampleHeapPerCall(const std::function<std::int64_t()>& in_flight, const std::function<void()>& run);

// User + system CPU of every child this process has reaped so far.
double ReapedChildrenCpuSeconds();
// User + system CPU of a running process (all its threads), from /proc; nullopt when unreadable.
std::optional<double> ProcessCpuSeconds(pid_t pid);

}  // namespace aftershock::bench

#endif  // AFTERSHOCK_BENCH_INTERNAL_BENCH_SUPPORT_H_
