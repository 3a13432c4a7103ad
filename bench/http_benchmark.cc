// http_benchmark: how fast aftershock's open-model runner holds a schedule over HTTP, next to wrk.
//
// Starts one aftershock-work server on 127.0.0.1 with its simulated latency and failures switched
// off, drives GET /work at a list of constant rates with OpenModelRunner + HttpWorkload (open model:
// arrivals on the clock, latency from the intended send time), then runs wrk (closed loop: every
// connection sends again as soon as it has its answer) against the same endpoint as the ceiling of
// what the server answers on this machine. Prints figures only; it asserts nothing about speed (the
// machine is shared and noisy). Not a ctest test.
//
//   build/bench/http_benchmark --rates=1000,20000 --seconds=4 --connections=256
//   BENCH_RATES=5000,40000 BENCH_SECONDS=3 build/bench/http_benchmark --wrk_connections=128
//
// Exit codes: 0 = ran (whatever the figures), 1 = the benchmark could not run, 2 = bad flags.
#include <malloc.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fixtures/targets/work/work_process.h"
#include "bench/internal/bench_support.h"
#include "framework/common/call_code.h"
#include "framework/common/run_clock.h"
#include "framework/load/http_workload.h"
#include "framework/load/open_model_runner.h"
#include "framework/load/rate_profile.h"
#include "framework/metrics/latency_histogram.h"
#include "framework/metrics/load_timeline.h"
#include "framework/process/child_process.h"

namespace aftershock::bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Flags
// ---------------------------------------------------------------------------------------------

struct BenchFlags {
  std::vector<double> rates = {1000, 2000, 5000, 10000, 20000};
  double seconds = 4;
  int connections = 256;  // HttpWorkload keep-alive pool size
  int io_threads = 1;
  int workers = 64;   // aftershock-work --workers
  int queue = 1024;   // aftershock-work --queue
  int coalesce_us = 0;  // RunnerOptions::dispatch_coalesce
  int wake_slice_us = 0;  // RunnerOptions::wake_slice
  bool inflight_probe = true;  // measure heap bytes per call in flight
  double warmup_seconds = 1;
  std::string wrk = "/usr/bin/wrk";  // empty: skip wrk
  int wrk_threads = 1;
  int wrk_connections = 64;
  int wrk_seconds = 5;
  bool help = false;
};

constexpr char kUsage[] =
    "usage: http_benchmark [flags]\n"
    "  --rates=R1,R2,...      constant rates (calls/s) for the open-model runner\n"
    "                         (default 1000,2000,5000,10000,20000; env BENCH_RATES)\n"
    "  --seconds=S            seconds per rate (default 4; env BENCH_SECONDS)\n"
    "  --connections=N        HttpWorkload keep-alive connections (default 256; env BENCH_CONNECTIONS)\n"
    "  --io_threads=N         HttpWorkload I/O threads (default 1)\n"
    "  --workers=N            aftershock-work --workers (default 64)\n"
    "  --queue=N              aftershock-work --queue (default 1024)\n"
    "  --warmup_seconds=S     unreported warm-up at 1000/s before the first rate (default 1; 0 = none)\n"
    "  --coalesce_us=N        the runner's dispatch_coalesce in microseconds (default 0)\n"
    "  --wake_slice_us=N      the runner's wake_slice in microseconds: wait in steps of at most N us (default 0)\n"
    "  --inflight_probe=BOOL  measure the heap bytes per call in flight (default true)\n"
    "  --wrk=PATH             wrk binary (default /usr/bin/wrk; empty = skip the wrk ceiling)\n"
    "  --wrk_threads=N        wrk -t (default 1)\n"
    "  --wrk_connections=N    wrk -c (default 64)\n"
    "  --wrk_seconds=N        wrk -d in seconds (default 5)\n"
    "Dashes and underscores are interchangeable in flag names.\n";

// Flags win over the environment, as with Google Benchmark's BENCHMARK_* variables.
BenchFlags ParseFlags(int argc, char** argv) {
  BenchFlags f;
  if (const char* env = std::getenv("BENCH_RATES"); env && *env) f.rates = ParseRates(env);
  if (const char* env = std::getenv("BENCH_SECONDS"); env && *env) f.seconds = ParsePositiveDouble("seconds", env);
  if (const char* env = std::getenv("BENCH_CONNECTIONS"); env && *env) {
    f.connections = ParsePositiveInt("connections", env);
  }
  for (const FlagArg& flag : SplitFlags(argc, argv, &f.help)) {
    const std::string& name = flag.name;
    const std::string& value = flag.value;
    if (name == "rates") f.rates = ParseRates(value);
    else if (name == "seconds") f.seconds = ParsePositiveDouble(name, value);
    else if (name == "connections") f.connections = ParsePositiveInt(name, value);
    else if (name == "io_threads") f.io_threads = ParsePositiveInt(name, value);
    else if (name == "workers") f.workers = ParsePositiveInt(name, value);
    else if (name == "queue") f.queue = ParsePositiveInt(name, value);
    else if (name == "warmup_seconds") f.warmup_seconds = ParsePositiveDouble(name, value, /*allow_zero=*/true);
    else if (name == "wrk") f.wrk = value;
    else if (name == "coalesce_us") f.coalesce_us = value == "0" ? 0 : ParsePositiveInt(name, value);
    else if (name == "wake_slice_us") f.wake_slice_us = value == "0" ? 0 : ParsePositiveInt(name, value);
    else if (name == "inflight_probe") f.inflight_probe = ParseBool(name, value);
    else if (name == "wrk_threads") f.wrk_threads = ParsePositiveInt(name, value);
    else if (name == "wrk_connections") f.wrk_connections = ParsePositiveInt(name, value);
    else if (name == "wrk_seconds") f.wrk_seconds = ParsePositiveInt(name, value);
    else throw FlagError("unknown flag '--" + name + "'");
  }
  return f;
}

// ---------------------------------------------------------------------------------------------
// Open-model runner over HTTP
// ---------------------------------------------------------------------------------------------

struct RunnerRow {
  double rate = 0;
  load::RunResult result;
  std::optional<double> server_cpu_seconds;
  metrics::LatencyHistogram latency;  // every completed call, from its intended send time
  std::map<CallCode, std::uint64_t> failed_by_code;
  load::HttpWorkloadStats http;
  bool held = false;  // ScheduleHeld (bench_support.h)
};

RunnerRow RunAtRate(const BenchFlags& flags, const work::WorkProcess& server, double rate, double seconds) {
  load::HttpWorkload workload(load::HttpWorkloadOptions{.target = server.address(),
                                                        .path = "/work",
                                                        .max_connections = flags.connections,
                                                        .io_threads = flags.io_threads});
  const RunClock clock = RunClock::StartNow();
  load::RunnerOptions options;
  options.profile = load::RateProfile::Constant(rate, seconds);
  options.call_deadline = std::chrono::seconds(2);
  options.max_in_flight = 100000;
  options.policy = load::HttpOutcomePolicy();
  options.dispatch_coalesce = std::chrono::microseconds(flags.coalesce_us);
  options.wake_slice = std::chrono::microseconds(flags.wake_slice_us);
  // A generator that falls behind keeps dispatching long after the schedule's end; stop it at twice
  // the schedule plus 2 s so an overloaded rate cannot stretch the benchmark (the row says "cut off").
  const auto give_up = clock.start() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(2 * seconds + 2));
  options.stop_requested = [give_up] { return Clock::now() > give_up; };
  load::OpenModelRunner runner(workload, std::move(options), clock);
  const std::optional<double> server_before = ProcessCpuSeconds(server.pid());
  RunnerRow row;
  row.rate = rate;
  row.result = runner.Run();
  const std::optional<double> server_after = ProcessCpuSeconds(server.pid());
  if (server_before && server_after) row.server_cpu_seconds = *server_after - *server_before;
  row.http = workload.stats();
  for (const metrics::SecondBucket& b : row.result.timeline.seconds()) {
    row.latency.Merge(b.latency);
    for (const auto& [code, n] : b.failed_by_code) row.failed_by_code[code] += n;
  }
  row.held = ScheduleHeld(row.result, rate);
  return row;
}

// ---------------------------------------------------------------------------------------------
// wrk
// ---------------------------------------------------------------------------------------------


struct WrkRow {
  bool ran = false;
  std::string error;  // why there are no figures, or what looked wrong
  int exit_code = -1;
  double req_per_second = 0;
  std::uint64_t requests = 0;     // "N requests in Ts"
  double duration_seconds = 0;
  std::uint64_t non_2xx_3xx = 0;  // "Non-2xx or 3xx responses: N"
  std::uint64_t socket_errors = 0;  // connect + read + write + timeout
  std::map<int, double> latency_ms;  // percentile -> ms, from --latency
  double wrk_cpu_seconds = 0;
  std::optional<double> server_cpu_seconds;
  bool server_alive_after = true;
};

// wrk prints durations as "512.00us", "1.23ms", "2.00s", "1.00m".
std::optional<double> WrkDurationMs(const std::string& number, const std::string& unit) {
  const double v = std::stod(number);
  if (unit == "us") return v / 1000;
  if (unit == "ms") return v;
  if (unit == "s") return v * 1000;
  if (unit == "m") return v * 60000;
  if (unit == "h") return v * 3600000;
  return std::nullopt;
}

void ParseWrkOutput(const std::string& out, WrkRow& row) {
  std::smatch m;
  if (std::regex_search(out, m, std::regex(R"(Requests/sec:\s+([0-9.]+))"))) {
    row.req_per_second = std::stod(m[1].str());
  } else {
    row.error = "no 'Requests/sec:' line in wrk's output";
  }
  // "  123456 requests in 5.00s, 12.34MB read"
  if (std::regex_search(out, m, std::regex(R"((\d+) requests in ([0-9.]+)(us|ms|s|m|h),)"))) {
    row.requests = std::stoull(m[1].str());
    row.duration_seconds = WrkDurationMs(m[2].str(), m[3].str()).value_or(0) / 1000;
  }
  if (std::regex_search(out, m, std::regex(R"(Non-2xx or 3xx responses: (\d+))"))) {
    row.non_2xx_3xx = std::stoull(m[1].str());
  }
  // "  Socket errors: connect 0, read 0, write 0, timeout 0"
  if (std::regex_search(out, m, std::regex(R"(Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+))"))) {
    for (int i = 1; i <= 4; ++i) row.socket_errors += std::stoull(m[i].str());
  }
  // "  Latency Distribution\n     50%  1.00ms\n     75% ..."
  const std::regex pct(R"(^\s+(\d+)%\s+([0-9.]+)(us|ms|s|m|h)\s*$)");
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, pct)) {
      if (auto ms = WrkDurationMs(m[2].str(), m[3].str())) row.latency_ms[std::stoi(m[1].str())] = *ms;
    }
  }
  if (row.error.empty() && row.latency_ms.empty()) row.error = "no latency distribution in wrk's output";
}

WrkRow RunWrk(const BenchFlags& flags, work::WorkProcess& server) {
  WrkRow row;
  TempDir dir;
  const std::filesystem::path log = dir.path() / "wrk.log";
  process::ChildOptions options;
  options.program = flags.wrk;
  options.args = {"-t" + std::to_string(flags.wrk_threads), "-c" + std::to_string(flags.wrk_connections),
                  "-d" + std::to_string(flags.wrk_seconds) + "s", "--latency",
                  "http://" + server.address() + "/work"};
  options.log_path = log.string();

  // RUSAGE_CHILDREN counts every child reaped in the window. The only other child is the server,
  // and nothing here reaps it (no Running/TryWait/Wait on it) until after the second reading.
  const std::optional<double> server_before = ProcessCpuSeconds(server.pid());
  const double children_before = ReapedChildrenCpuSeconds();
  try {
    process::ChildProcess child = process::ChildProcess::Start(options);
    const auto limit = std::chrono::seconds(flags.wrk_seconds + 60);
    try {
      row.exit_code = child.Wait(limit);
    } catch (const std::exception& e) {
      row.exit_code = child.Stop(std::chrono::seconds(2));
      row.error = "wrk did not finish in " + std::to_string(limit.count()) + " s: " + e.what();
    }
  } catch (const std::exception& e) {
    row.error = std::string("cannot run wrk: ") + e.what();
    return row;
  }
  row.wrk_cpu_seconds = ReapedChildrenCpuSeconds() - children_before;
  const std::optional<double> server_after = ProcessCpuSeconds(server.pid());
  if (server_before && server_after) row.server_cpu_seconds = *server_after - *server_before;
  row.server_alive_after = server.process().Running();

  std::ifstream in(log);
  const std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::cout << "--- wrk output ---\n" << out << "------------------\n";
  row.ran = true;
  if (row.error.empty()) ParseWrkOutput(out, row);
  if (row.error.empty() && row.exit_code != 0) row.error = "wrk exited with " + std::to_string(row.exit_code);
  if (row.error.empty() && (row.non_2xx_3xx > 0 || row.socket_errors > 0)) {
    row.error = std::to_string(row.non_2xx_3xx) + " non-2xx/3xx responses and " + std::to_string(row.socket_errors) +
                " socket errors (the ceiling includes failures)";
  }
  if (!row.server_alive_after) {
    row.error += (row.error.empty() ? "" : "; ") +
                 std::string("the server exited during wrk, so wrk's CPU figure may include the server's");
  }
  return row;
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string PerThousand(double cpu_seconds, std::uint64_t calls) {
  return calls > 0 ? Fixed(cpu_seconds / static_cast<double>(calls) * 1000, 4) : "n/a";
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return in ? a + " " + b + " " + c : "unknown";
}

// Heap bytes per call in flight: 2000/s against a server that answers after exactly 1 s, so about
// 2000 calls are in flight after the first second; what one more call in flight costs, its pooled
// connection included (bench_support's SampleHeapPerCall).
InFlightMemoryFit ProbeInFlightMemory(const BenchFlags& flags) {
  work::WorkProcess slow = work::WorkProcess::Start(
      {.extra_args = {"--latency-min-ms=1000", "--latency-max-ms=1000", "--failure-rate=0", "--workers=20000",
                      "--queue=1"}});
  load::HttpWorkload workload(
      load::HttpWorkloadOptions{.target = slow.address(), .path = "/work", .max_connections = 5000, .io_threads = flags.io_threads});
  const RunClock clock = RunClock::StartNow();
  load::RunnerOptions options;
  options.profile = load::RateProfile::Constant(2000, 2.5);
  options.call_deadline = std::chrono::seconds(3);
  options.max_in_flight = 5000;
  options.policy = load::HttpOutcomePolicy();
  load::OpenModelRunner runner(workload, std::move(options), clock);
  const InFlightMemoryFit probe =
      SampleHeapPerCall([&] { return runner.Progress().in_flight; }, [&] { runner.Run(); });
  slow.Stop();
  return probe;
}

void PrintReport(const BenchFlags& flags, const std::vector<RunnerRow>& rows, const std::optional<WrkRow>& wrk,
                 const std::optional<InFlightMemoryFit>& probe) {
  std::cout << "\n## Open-model runner over HTTP (OpenModelRunner + HttpWorkload, GET /work, " << flags.connections
            << " keep-alive connection(s), " << flags.io_threads << " I/O thread(s), " << Fixed(flags.seconds, 1)
            << " s per rate, deadline 2 s)\n\n"
            << "| offered/s | achieved/s | ach/off | ok | failed | shed | lag p50 ms | lag p99 ms | lag max ms "
               "| call p50 ms | call p99 ms | gen CPU s/1k req | server CPU s/1k req | connections opened "
               "| generator-limited | held |\n"
            << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|:---|\n";
  for (const RunnerRow& r : rows) {
    const metrics::GeneratorHealth& h = r.result.health;
    const std::uint64_t issued = r.result.issued;
    std::cout << "| " << Fixed(r.rate, 0) << " | " << Fixed(h.achieved_rate, 0) << " | "
              << Fixed(h.achieved_rate / r.rate, 3) << " | " << r.result.ok << " | " << r.result.failed << " | "
              << r.result.shed << " | " << Fixed(h.lag_p50_ms, 3) << " | " << Fixed(h.lag_p99_ms, 3) << " | "
              << Fixed(h.lag_max_ms, 2) << " | " << Fixed(r.latency.ValueAtPercentile(50) / 1e6, 3) << " | "
              << Fixed(r.latency.ValueAtPercentile(99) / 1e6, 3) << " | " << PerThousand(h.cpu_seconds, issued)
              << " | " << (r.server_cpu_seconds ? PerThousand(*r.server_cpu_seconds, issued) : "n/a") << " | "
              << r.http.connections_opened << " | " << (h.generator_limited ? "yes" : "no")
              << (r.result.interrupted ? " (cut off)" : "") << " | " << (r.held ? "yes" : "no") << " |\n";
  }
  std::cout << "\n";
  for (const RunnerRow& r : rows) {
    if (r.failed_by_code.empty() && !r.result.health.generator_limited && !r.result.interrupted) continue;
    std::cout << "- " << Fixed(r.rate, 0) << "/s:";
    if (r.result.interrupted) {
      std::cout << " cut off at " << Fixed(2 * flags.seconds + 2, 0) << " s with " << r.result.issued + r.result.shed
                << " of " << static_cast<std::uint64_t>(std::ceil(r.rate * flags.seconds)) << " arrivals dispatched;";
    }
    for (const auto& [code, n] : r.failed_by_code) std::cout << " " << CallCodeName(code) << " " << n << ";";
    if (r.result.health.generator_limited) std::cout << " generator-limited: " << r.result.health.reason;
    std::cout << "\n";
  }

  std::cout << "\n## wrk (closed loop ceiling: -t" << flags.wrk_threads << " -c" << flags.wrk_connections << " -d"
            << flags.wrk_seconds << "s --latency, GET /work)\n\n";
  if (!wrk) {
    std::cout << "skipped (--wrk= empty)\n";
  } else if (!wrk->ran) {
    std::cout << "not run: " << wrk->error << "\n";
  } else {
    auto pct = [&](int p) {
      const auto it = wrk->latency_ms.find(p);
      return it == wrk->latency_ms.end() ? std::string("n/a") : Fixed(it->second, 3);
    };
    std::cout << "| req/s | requests | in s | non-2xx/3xx | socket errors | latency p50 ms | p75 ms | p90 ms "
                 "| p99 ms | wrk CPU s/1k req | server CPU s/1k req |\n"
              << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
              << "| " << Fixed(wrk->req_per_second, 0) << " | " << wrk->requests << " | "
              << Fixed(wrk->duration_seconds, 2) << " | " << wrk->non_2xx_3xx << " | " << wrk->socket_errors << " | "
              << pct(50) << " | " << pct(75) << " | " << pct(90) << " | " << pct(99) << " | "
              << PerThousand(wrk->wrk_cpu_seconds, wrk->requests) << " | "
              << (wrk->server_cpu_seconds ? PerThousand(*wrk->server_cpu_seconds, wrk->requests) : "n/a")
              << " |\n\n";
    if (!wrk->error.empty()) std::cout << "WARNING: " << wrk->error << "\n";
    std::cout << "note: wrk's latency is closed-loop (from the actual send), the runner's call latency is from "
                 "the intended send time.\n";
  }

  // Issue 12's held rate: held there and at every lower rate (HighestRateHeldThroughout).
  std::vector<double> row_rates;
  std::vector<bool> row_held;
  for (const RunnerRow& r : rows) {
    row_rates.push_back(r.rate);
    row_held.push_back(r.held);
  }
  const auto held_index = HighestRateHeldThroughout(row_rates, row_held);
  const RunnerRow* best_held = held_index ? &rows[*held_index] : nullptr;
  const bool have_wrk = wrk && wrk->ran && wrk->req_per_second > 0;
  std::cout << "\n## Summary\n\n"
            << "highest rate the runner held, and held at every lower rate (" << kHeldRule << "): ";
  if (!best_held) {
    std::cout << "none";
  } else {
    std::cout << Fixed(best_held->rate, 0) << " req/s (failed " << best_held->result.failed << ", shed "
              << best_held->result.shed << ")";
    if (have_wrk) {
      std::cout << " = " << Fixed(best_held->rate / wrk->req_per_second, 3) << " x wrk's "
                << Fixed(wrk->req_per_second, 0) << " req/s";
    }
  }
  std::cout << "\n";
  // A shared machine makes single rows noisy: a low rate can miss the bar while a higher one holds.
  for (const RunnerRow& r : rows) {
    if (r.held && (!best_held || r.rate > best_held->rate)) {
      std::cout << "note: " << Fixed(r.rate, 0) << " req/s held, but a lower rate did not: it does not count as held\n";
    }
  }
  if (best_held && best_held->rate == *std::max_element(flags.rates.begin(), flags.rates.end())) {
    std::cout << "note: the highest rate tried was held; the runner's limit lies above it (try higher --rates).\n";
  }
  if (probe) {
    std::cout << "memory: " << Fixed(probe->bytes_per_call, 0) << " heap bytes per request in flight (its pooled "
              << "connection included; least squares over " << probe->samples << " samples up to "
              << probe->peak_in_flight << " in flight, glibc mallinfo2)\n";
  }
  // Issue 12's goal: CPU per request at most 2 x wrk's, with the schedule held up to at least
  // 0.8 x wrk's closed-loop rate. The last line is the machine-readable one.
  // Without a held rate, the CPU figure is the highest rate's (and held_rate says 0).
  const RunnerRow* measured = best_held;
  for (const RunnerRow& r : rows) {
    if (!best_held && (!measured || r.rate > measured->rate)) measured = &r;
  }
  const double ours = measured && measured->result.issued > 0
                          ? measured->result.health.cpu_seconds / static_cast<double>(measured->result.issued) * 1e6
                          : 0;
  const double theirs = have_wrk && wrk->requests > 0 ? wrk->wrk_cpu_seconds / static_cast<double>(wrk->requests) * 1e6 : 0;
  std::cout << "goal: generator CPU per request <= 2 x wrk's at the highest rate held, and that rate >= 0.8 x wrk's: ";
  if (!best_held || !have_wrk || theirs <= 0) {
    std::cout << "not judged (" << (!best_held ? "no rate held" : "no wrk figures") << ")\n";
  } else {
    const bool cpu = ours <= 2 * theirs;
    const bool rate = best_held->rate >= 0.8 * wrk->req_per_second;
    std::cout << Fixed(ours / theirs, 3) << " x, " << Fixed(best_held->rate / wrk->req_per_second, 3)
              << " x the rate: CPU " << (cpu ? "MET" : "NOT MET") << ", rate " << (rate ? "MET" : "NOT MET")
              << " in this run\n";
  }
  std::cout << "machine: " << std::thread::hardware_concurrency() << " hardware threads; load average now "
            << LoadAverage() << "\n";
  if (have_wrk) {
    std::cout << FormatRatioLine({.generator_cpu_us_per_call = ours,
                                  .reference = "wrk",
                                  .reference_cpu_us_per_call = theirs,
                                  .held_rate = best_held ? best_held->rate : 0,
                                  .reference_rate = wrk->req_per_second})
              << "\n";
  }
}

int Main(int argc, char** argv) {
  BenchFlags flags;
  try {
    flags = ParseFlags(argc, argv);
  } catch (const FlagError& e) {
    std::cerr << "http_benchmark: " << e.what() << "\n" << kUsage;
    return 2;
  }
  if (flags.help) {
    std::cout << kUsage;
    return 0;
  }

  std::cout << "load average before: " << LoadAverage() << "\n";
  work::WorkProcess server = work::WorkProcess::Start(
      {.extra_args = {"--latency-min-ms=0", "--latency-max-ms=0", "--failure-rate=0",
                      "--workers=" + std::to_string(flags.workers), "--queue=" + std::to_string(flags.queue)}});
  std::cout << "server: aftershock-work pid " << server.pid() << " on " << server.address()
            << " (latency 0 ms, failure rate 0, workers " << flags.workers << ", queue " << flags.queue << ")\n";

  if (flags.warmup_seconds > 0) {
    std::cout << "warm-up: 1000/s for " << flags.warmup_seconds << " s (not reported)\n" << std::flush;
    RunAtRate(flags, server, 1000, flags.warmup_seconds);
  }
  std::vector<RunnerRow> rows;
  for (double rate : flags.rates) {
    std::cout << "runner: " << Fixed(rate, 0) << " req/s for " << flags.seconds << " s ..." << std::flush;
    rows.push_back(RunAtRate(flags, server, rate, flags.seconds));
    const load::RunResult& r = rows.back().result;
    std::cout << " ok " << r.ok << ", failed " << r.failed << ", shed " << r.shed
              << (r.interrupted ? " (cut off)" : "") << "\n";
  }

  std::optional<WrkRow> wrk;
  if (!flags.wrk.empty()) {
    std::cout << "wrk: -t" << flags.wrk_threads << " -c" << flags.wrk_connections << " -d" << flags.wrk_seconds
              << "s ...\n"
              << std::flush;
    wrk = RunWrk(flags, server);
  }

  std::optional<InFlightMemoryFit> probe;
  if (flags.inflight_probe) {
    std::cout << "memory: 2000/s against a server answering after 1 s ...\n" << std::flush;
    probe = ProbeInFlightMemory(flags);
  }
  const int server_exit = server.Stop();
  std::cout << "server stopped (exit code " << server_exit << ")\n";
  PrintReport(flags, rows, wrk, probe);  // last: its final line is the machine-readable ratio
  return 0;
}

}  // namespace
}  // namespace aftershock::bench

int main(int argc, char** argv) {
  try {
    return aftershock::bench::Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "http_benchmark: " << e.what() << "\n";
    return 1;
  }
}
