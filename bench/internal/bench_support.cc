#include "bench/internal/bench_support.h"

#include <malloc.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// The sanitizer's own allocator serves malloc; GCC 12 ships no <sanitizer/allocator_interface.h>.
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

namespace aftershock::bench {
namespace {

double Seconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; }

}  // namespace

double ParsePositiveDouble(const std::string& name, const std::string& text, bool allow_zero) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || std::isnan(v) ||
      (allow_zero ? v < 0 : v <= 0)) {
    throw FlagError("--" + name + ": expected a " + (allow_zero ? "non-negative" : "positive") +
                    " number, got '" + text + "'");
  }
  return v;
}

int ParsePositiveInt(const std::string& name, const std::string& text) {
  int v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v <= 0) {
    throw FlagError("--" + name + ": expected a positive integer, got '" + text + "'");
  }
  return v;
}

bool ParseBool(const std::string& name, const std::string& text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  throw FlagError("--" + name + ": expected true or false, got '" + text + "'");
}

std::string FormatRatioLine(const RatioLine& line) {
  char buf[320];
  const double ratio =
      line.reference_cpu_us_per_call > 0 ? line.generator_cpu_us_per_call / line.reference_cpu_us_per_call : 0;
  std::snprintf(buf, sizeof buf,
                "ratio generator_cpu_per_call=%.1f reference=%s reference_cpu_per_call=%.1f ratio=%.3f "
                "held_rate=%.0f reference_rate=%.0f",
                line.generator_cpu_us_per_call, line.reference.c_str(), line.reference_cpu_us_per_call, ratio,
                line.held_rate, line.reference_rate);
  return buf;
}

std::vector<double> ParseRates(const std::string& text) {
  std::vector<double> rates;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) rates.push_back(ParsePositiveDouble("rates", item));
  if (rates.empty()) throw FlagError("--rates: expected at least one rate");
  return rates;
}

std::vector<FlagArg> SplitFlags(int argc, char** argv, bool* help) {
  std::vector<FlagArg> flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      continue;
    }
    const std::size_t equals = arg.find('=');
    if (arg.rfind("--", 0) != 0 || equals == std::string::npos) throw FlagError("unknown argument '" + arg + "'");
    std::string name = arg.substr(2, equals - 2);
    std::replace(name.begin(), name.end(), '-', '_');
    flags.push_back({std::move(name), arg.substr(equals + 1)});
  }
  return flags;
}

std::string Fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

bool ScheduleHeld(const HeldFigures& f) {
  return !f.cut_off && !f.generator_limited && f.shed == 0 && f.rate > 0 &&
         f.achieved_rate / f.rate >= kHeldAchievedRatio && f.lag_p99_ms < kHeldLagP99Ms;
}

std::optional<std::size_t> HighestRateHeldThroughout(const std::vector<double>& rates, const std::vector<bool>& held) {
  if (rates.size() != held.size()) {
    throw std::invalid_argument("HighestRateHeldThroughout: " + std::to_string(rates.size()) + " rates but " +
                                std::to_string(held.size()) + " verdicts");
  }
  std::vector<std::size_t> order(rates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rates[a] < rates[b]; });
  std::optional<std::size_t> best;
  for (const std::size_t i : order) {
    if (!held[i]) break;
    best = i;
  }
  return best;
}

InFlightMemoryFit FitHeapPerCall(const std::vector<std::pair<double, double>>& points) {
  InFlightMemoryFit fit;
  fit.samples = points.size();
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : points) {
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    fit.peak_in_flight = std::max(fit.peak_in_flight, static_cast<std::int64_t>(x));
  }
  const double n = static_cast<double>(points.size());
  const double denominator = n * sxx - sx * sx;
  fit.bytes_per_call = denominator > 0 ? (n * sxy - sx * sy) / denominator : 0;
  return fit;
}

std::size_t HeapBytesInUse() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // Under ASan or TSan glibc's arenas hold nothing of the program's: mallinfo2() stays flat (the
  // runtime intercepts the old mallinfo, with zeros, but not mallinfo2), so ask the allocator in use.
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

InFlightMemoryFit SampleHeapPerCall(const std::function<std::int64_t()>& in_flight, const std::function<void()>& run) {
  std::atomic<bool> done{false};
  std::vector<std::pair<double, double>> points;  // (in flight, heap bytes)
  std::thread sampler([&] {
    for (int i = 0; i < 1000 && !done.load(); ++i) {
      const std::int64_t n = in_flight();
      const double heap = static_cast<double>(HeapBytesInUse());
      points.emplace_back(static_cast<double>(n), heap);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  try {
    run();
  } catch (...) {
    done.store(true);
    sampler.join();
    throw;
  }
  done.store(true);
  sampler.join();
  return FitHeapPerCall(points);
}

double ReapedChildrenCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
}

std::optional<double> ProcessCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Field 2 (comm) may contain spaces; the fields after its closing ')' are space separated:
  // state(3) ... utime(14) stime(15).
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  std::uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  if (!rest) return std::nullopt;
  const long ticks = sysconf(_SC_CLK_TCK);
  return static_cast<double>(utime + stime) / static_cast<double>(ticks > 0 ? ticks : 100);
}

}  // namespace aftershock::bench
