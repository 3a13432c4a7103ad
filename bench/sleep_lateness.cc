// How late this machine wakes a thread that sleeps until an absolute time, as the open-model
// runner's dispatcher does (std::this_thread::sleep_until, timer slack 1 us), with nothing else of
// the generator around it. It tells whether the runner's "dispatch lag p99 < 1 ms" bar can be met
// here at all: when a bare sleeping loop misses it, so does any generator. --fifo=true runs the
// loop at real-time priority (SCHED_FIFO 1; needs CAP_SYS_NICE), which no task of the guest can
// delay: what is still late then is the host's (a virtual CPU not running), not the guest's.
//
//   build/bench/sleep_lateness --gap_us=1000 --seconds=10 [--fifo=true]
//
// Prints one line of lateness percentiles; asserts nothing.
#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "bench/internal/bench_support.h"

namespace aftershock::bench {
namespace {

struct Flags {
  int gap_us = 1000;
  double seconds = 10;
  int slice_us = 0;
  bool fifo = false;
  bool help = false;
};

constexpr char kUsage[] =
    "usage: sleep_lateness [--gap_us=N] [--seconds=S] [--fifo=BOOL]\n"
    "  --gap_us=N     sleep until every N-th microsecond (default 1000: the gap of 1000 arrivals/s)\n"
    "  --seconds=S    how long (default 10)\n"
    "  --slice_us=N   sleep at most N us at a time, waking in between (default 0: one sleep to the time)\n"
    "  --fifo=BOOL    at real-time priority SCHED_FIFO 1 (default false; needs CAP_SYS_NICE)\n"
    "Dashes and underscores are interchangeable in flag names.\n";

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (const FlagArg& flag : SplitFlags(argc, argv, &f.help)) {
    const std::string& name = flag.name;
    const std::string& value = flag.value;
    if (name == "gap_us") f.gap_us = ParsePositiveInt(name, value);
    else if (name == "seconds") f.seconds = ParsePositiveDouble(name, value);
    else if (name == "slice_us") f.slice_us = value == "0" ? 0 : ParsePositiveInt(name, value);
    else if (name == "fifo") f.fifo = ParseBool(name, value);
    else throw FlagError("unknown flag '--" + name + "'");
  }
  return f;
}

int Run(const Flags& flags) {
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);  // as OpenModelRunner::Run()
  if (flags.fifo) {
    const sched_param param{.sched_priority = 1};
    if (sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
      std::cerr << "sleep_lateness: --fifo=true: sched_setscheduler(SCHED_FIFO) failed: " << std::strerror(errno)
                << " (needs CAP_SYS_NICE)\n";
      return 1;
    }
  }
  using Clock = std::chrono::steady_clock;
  const auto gap = std::chrono::microseconds(flags.gap_us);
  const auto count = static_cast<std::int64_t>(flags.seconds * 1e6 / flags.gap_us);
  std::vector<std::int64_t> late;
  late.reserve(static_cast<std::size_t>(count));
  const Clock::time_point start = Clock::now() + std::chrono::milliseconds(1);
  for (std::int64_t i = 0; i < count; ++i) {
    const Clock::time_point target = start + i * gap;
    if (flags.slice_us > 0) {
      for (Clock::time_point now = Clock::now(); now < target; now = Clock::now()) {
        std::this_thread::sleep_until(std::min(target, now + std::chrono::microseconds(flags.slice_us)));
      }
    } else {
      std::this_thread::sleep_until(target);
    }
    late.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - target).count());
  }
  std::sort(late.begin(), late.end());
  const auto at = [&](double percent) {
    const auto index = static_cast<std::size_t>(percent / 100 * static_cast<double>(late.size()));
    return Fixed(static_cast<double>(late[std::min(index, late.size() - 1)]) / 1e3, 0);
  };
  const auto over_1ms = std::count_if(late.begin(), late.end(), [](std::int64_t ns) { return ns > 1'000'000; });
  std::cout << "sleep_lateness gap_us=" << flags.gap_us << " sleeps=" << late.size()
            << " slice_us=" << flags.slice_us << " policy=" << (flags.fifo ? "fifo" : "normal") << " late_us p50=" << at(50) << " p90=" << at(90)
            << " p99=" << at(99) << " p99.9=" << at(99.9) << " max=" << Fixed(static_cast<double>(late.back()) / 1e3, 0)
            << " over_1ms=" << over_1ms << "\n";
  return 0;
}

}  // namespace
}  // namespace aftershock::bench

int main(int argc, char** argv) {
  using namespace aftershock::bench;
  Flags flags;
  try {
    flags = ParseFlags(argc, argv);
  } catch (const FlagError& e) {
    std::cerr << "sleep_lateness: " << e.what() << "\n" << kUsage;
    return 2;
  }
  if (flags.help) {
    std::cout << kUsage;
    return 0;
  }
  return Run(flags);
}
