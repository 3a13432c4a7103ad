// What the benchmark programs share: strict flag values and CPU accounting of this process's
// children. Benchmarks print figures; these helpers only parse and measure.
//
//   double seconds = ParsePositiveDouble("seconds", "2.5");          // FlagError on "0", "x", ""
//   std::vector<double> rates = ParseRates("1000,5000");
//   std::optional<double> cpu = ProcessCpuSeconds(server_pid);       // user + system, all threads
#ifndef AFTERSHOCK_BENCH_INTERNAL_BENCH_SUPPORT_H_
#define AFTERSHOCK_BENCH_INTERNAL_BENCH_SUPPORT_H_

#include <sys/types.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace aftershock::bench {

// A bad flag value or an unknown flag; the message names the flag.
class FlagError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

double ParsePositiveDouble(const std::string& name, const std::string& text, bool allow_zero = false);
int ParsePositiveInt(const std::string& name, const std::string& text);
// Comma-separated positive rates; at least one.
std::vector<double> ParseRates(const std::string& text);

// User + system CPU of every child this process has reaped so far.
double ReapedChildrenCpuSeconds();
// User + system CPU of a running process (all its threads), from /proc; nullopt when unreadable.
std::optional<double> ProcessCpuSeconds(pid_t pid);

}  // namespace aftershock::bench

#endif  // AFTERSHOCK_BENCH_INTERNAL_BENCH_SUPPORT_H_
