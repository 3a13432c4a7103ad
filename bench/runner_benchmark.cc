// runner_benchmark: how fast aftershock's open-model runner can hold a schedule, next to h2load.
//
// Starts one in-memory aftershock-pseudonym server on 127.0.0.1, drives Create at a list of
// constant rates with OpenModelRunner (open model: arrivals on the clock, latency from the intended
// send time), then runs h2load (closed loop: every stream sends again as soon as it has its answer)
// against the same method as the ceiling of what the server answers on this machine. Prints figures
// only; it asserts nothing about speed (the machine is shared and noisy). Not a ctest test.
//
//   build/bench/runner_benchmark --rates=1000,20000 --seconds=5 --channels=2
//   BENCH_RATES=5000,40000 BENCH_SECONDS=3 build/bench/runner_benchmark
//
// Exit codes: 0 = ran (whatever the figures), 1 = the benchmark could not run, 2 = bad flags.
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <chrono>
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

#include <grpcpp/grpcpp.h>

#include "fixtures/targets/pseudonym/adapter/pseudonym_target.h"
#include "fixtures/targets/pseudonym/pseudonym.grpc.pb.h"
#include "fixtures/targets/pseudonym/pseudonym_process.h"
#include "bench/bare_grpc_reference.h"
#include "bench/internal/bench_support.h"
#include "bench/runner_soak.h"
#include "framework/common/call_code.h"
#include "framework/common/run_clock.h"
#include "framework/ledger/promise_ledger.h"
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
  std::vector<double> rates = {1000, 5000, 10000, 20000, 40000, 60000};
  double seconds = 5;
  int channels = 2;
  double warmup_seconds = 1;
  std::string h2load = "/usr/bin/h2load";  // empty: skip h2load
  int h2load_requests = 200000;
  int h2load_clients = 4;
  int h2load_streams = 64;
  bool reference = true;  // the bare gRPC callback client's closed-loop row
  int coalesce_us = 0;    // RunnerOptions::dispatch_coalesce
  int wake_slice_us = 0;  // RunnerOptions::wake_slice
  bool polled = true;     // PseudonymTargetOptions::poll_completions: the CompletionQueue the runner polls
  double soak_seconds = 0;  // 0: no soak run
  double soak_rate = 5000;
  double soak_warmup_seconds = 60;
  bool soak_compact = true;  // RunnerOptions::compact_final_seconds in the soak
  int soak_release_pileup = 256;  // RunnerOptions::release_memory_after_pileup in the soak
  double soak_stall_at = 0;       // 0: no stall in the soak
  bool inflight_probe = true;  // heap bytes per gRPC call in flight
  bool abseil_deadlock_detection = false;  // RunnerOptions::abseil_deadlock_detection
  bool help = false;
};

constexpr char kUsage[] =
    "usage: runner_benchmark [flags]\n"
    "  --rates=R1,R2,...      constant rates (calls/s) for the open-model runner\n"
    "                         (default 1000,5000,10000,20000,40000,60000; env BENCH_RATES)\n"
    "  --seconds=S            seconds per rate (default 5; env BENCH_SECONDS)\n"
    "  --channels=N           gRPC channels the runner spreads load over (default 2; env BENCH_CHANNELS)\n"
    "  --warmup_seconds=S     unreported warm-up at 1000/s before the first rate (default 1; 0 = none)\n"
    "  --h2load=PATH          h2load binary (default /usr/bin/h2load; empty = skip the h2load ceiling)\n"
    "  --h2load_requests=N    h2load -n (default 200000)\n"
    "  --h2load_clients=N     h2load -c (default 4)\n"
    "  --h2load_streams=N     h2load -m, concurrent streams per connection (default 64)\n"
    "  --coalesce_us=N        the runner's dispatch_coalesce in microseconds (default 0)\n"
    "  --wake_slice_us=N      the runner's wake_slice in microseconds: wait in steps of at most N us (default 0)\n"
    "  --grpc_api=API         the runner's gRPC API: polled (a CompletionQueue polled by the dispatcher,\n"
    "                         GrpcAsyncUnaryWorkload; the default) or callback (GrpcUnaryWorkload)\n"
    "  --soak_seconds=S       after the rates, one long run watching RSS (default 0 = none; env BENCH_SOAK_SECONDS)\n"
    "  --soak_rate=R          the soak run's rate (default 5000)\n"
    "  --soak_warmup_seconds=S  RSS is compared from this point of the soak on (default 60)\n"
    "  --soak_compact=BOOL    compact the soak's finished seconds (default true; false: the dense timeline, to compare)\n"
    "  --soak_release_pileup=N  return a drained pile-up's memory after a rise of N calls in flight (default 256,\n"
    "                         the runner's; 0: never, to compare)\n"
    "  --soak_stall_at=S      at S s into the soak the server holds one second's calls, a pile-up of ~rate calls\n"
    "                         (default 0 = none; rows every second when the soak is 60 s or shorter)\n"
    "  --reference=BOOL       run the bare gRPC callback client as reference (default true; env BENCH_REFERENCE)\n"
    "  --inflight_probe=BOOL  measure the heap bytes per gRPC call in flight (default true)\n"
    "  --abseil_deadlock_detection=BOOL  leave abseil's lock-order tracking on for the whole process, the\n"
    "                         references included (default false: the runner turns it off, as in a scenario)\n"
    "Dashes and underscores are interchangeable in flag names.\n";

// Flags win over the environment, as with Google Benchmark's BENCHMARK_* variables.
BenchFlags ParseFlags(int argc, char** argv) {
  BenchFlags f;
  if (const char* env = std::getenv("BENCH_RATES"); env && *env) f.rates = ParseRates(env);
  if (const char* env = std::getenv("BENCH_SECONDS"); env && *env) f.seconds = ParsePositiveDouble("seconds", env);
  if (const char* env = std::getenv("BENCH_CHANNELS"); env && *env) f.channels = ParsePositiveInt("channels", env);
  if (const char* env = std::getenv("BENCH_REFERENCE"); env && *env) f.reference = ParseBool("reference", env);
  if (const char* env = std::getenv("BENCH_SOAK_SECONDS"); env && *env) {
    f.soak_seconds = ParsePositiveDouble("soak_seconds", env, /*allow_zero=*/true);
  }
  for (const FlagArg& flag : SplitFlags(argc, argv, &f.help)) {
    const std::string& name = flag.name;
    const std::string& value = flag.value;
    if (name == "rates") f.rates = ParseRates(value);
    else if (name == "seconds") f.seconds = ParsePositiveDouble(name, value);
    else if (name == "channels") f.channels = ParsePositiveInt(name, value);
    else if (name == "warmup_seconds") f.warmup_seconds = ParsePositiveDouble(name, value, /*allow_zero=*/true);
    else if (name == "h2load") f.h2load = value;
    else if (name == "h2load_requests") f.h2load_requests = ParsePositiveInt(name, value);
    else if (name == "h2load_clients") f.h2load_clients = ParsePositiveInt(name, value);
    else if (name == "h2load_streams") f.h2load_streams = ParsePositiveInt(name, value);
    else if (name == "reference") f.reference = ParseBool(name, value);
    else if (name == "inflight_probe") f.inflight_probe = ParseBool(name, value);
    else if (name == "abseil_deadlock_detection") f.abseil_deadlock_detection = ParseBool(name, value);
    else if (name == "grpc_api") {
      if (value != "polled" && value != "callback") throw FlagError("--grpc_api: expected polled or callback, got '" + value + "'");
      f.polled = value == "polled";
    } else if (name == "coalesce_us") f.coalesce_us = value == "0" ? 0 : ParsePositiveInt(name, value);
    else if (name == "wake_slice_us") f.wake_slice_us = value == "0" ? 0 : ParsePositiveInt(name, value);
    else if (name == "soak_seconds") f.soak_seconds = ParsePositiveDouble(name, value, /*allow_zero=*/true);
    else if (name == "soak_rate") f.soak_rate = ParsePositiveDouble(name, value);
    else if (name == "soak_warmup_seconds") f.soak_warmup_seconds = ParsePositiveDouble(name, value, /*allow_zero=*/true);
    else if (name == "soak_compact") f.soak_compact = ParseBool(name, value);
    else if (name == "soak_stall_at") f.soak_stall_at = ParsePositiveDouble(name, value, /*allow_zero=*/true);
    else if (name == "soak_release_pileup") {
      f.soak_release_pileup = value == "0" ? 0 : ParsePositiveInt(name, value);
    }
    else throw FlagError("unknown flag '--" + name + "'");
  }
  return f;
}

// ---------------------------------------------------------------------------------------------
// Open-model runner
// ---------------------------------------------------------------------------------------------

struct RunnerRow {
  double rate = 0;
  load::RunResult result;
  std::optional<double> server_cpu_seconds;
  metrics::LatencyHistogram latency;  // every completed call, from its intended send time
  std::map<CallCode, std::uint64_t> failed_by_code;
  bool held = false;  // ScheduleHeld (bench_support.h)
};

RunnerRow RunAtRate(fixtures::PseudonymTarget& target, pid_t server_pid, double rate, double seconds,
                    const BenchFlags& flags) {
  ledger::PromiseLedger ledger(ledger::LedgerOptions{.capacity = 2000});
  const RunClock clock = RunClock::StartNow();
  auto workload = target.MakeWorkload(ledger, clock);
  load::RunnerOptions options;
  options.profile = load::RateProfile::Constant(rate, seconds);
  options.call_deadline = std::chrono::seconds(2);
  options.max_in_flight = 100000;
  options.dispatch_coalesce = std::chrono::microseconds(flags.coalesce_us);
  options.wake_slice = std::chrono::microseconds(flags.wake_slice_us);
  options.abseil_deadlock_detection = flags.abseil_deadlock_detection;
  // A generator that falls behind keeps dispatching long after the schedule's end; stop it at twice
  // the schedule plus 2 s so an overloaded rate cannot stretch the benchmark (the row says "cut off").
  const auto give_up = clock.start() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(2 * seconds + 2));
  options.stop_requested = [give_up] { return Clock::now() > give_up; };
  load::OpenModelRunner runner(*workload, std::move(options), clock);
  const std::optional<double> server_before = ProcessCpuSeconds(server_pid);
  RunnerRow row;
  row.rate = rate;
  row.result = runner.Run();
  const std::optional<double> server_after = ProcessCpuSeconds(server_pid);
  if (server_before && server_after) row.server_cpu_seconds = *server_after - *server_before;
  for (const metrics::SecondBucket& b : row.result.timeline.seconds()) {
    row.latency.Merge(b.latency);
    for (const auto& [code, n] : b.failed_by_code) row.failed_by_code[code] += n;
  }
  row.held = ScheduleHeld(row.result, rate);
  return row;
}

// ---------------------------------------------------------------------------------------------
// h2load
// ---------------------------------------------------------------------------------------------

// One gRPC length-prefixed message: compression flag 0, 4-byte big-endian length, the message.
std::string GrpcFrame(const std::string& message) {
  std::string frame;
  frame.push_back('\0');
  const auto n = static_cast<std::uint32_t>(message.size());
  for (int shift = 24; shift >= 0; shift -= 8) frame.push_back(static_cast<char>((n >> shift) & 0xff));
  return frame + message;
}

struct H2loadRow {
  bool ran = false;
  std::string error;  // why there are no figures, or what looked wrong
  int exit_code = -1;
  double finished_seconds = 0, req_per_second = 0;
  std::uint64_t total = 0, done = 0, succeeded = 0, failed = 0, errored = 0, timeout = 0;
  std::uint64_t status_2xx = 0, status_3xx = 0, status_4xx = 0, status_5xx = 0;
  double h2load_cpu_seconds = 0;
  std::optional<double> server_cpu_seconds;
  std::string lookup_check;  // whether the repeated Create was actually stored (gRPC level)
};

std::uint64_t MatchCount(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) return 0;
  return std::stoull(m[1].str());
}

void ParseH2loadOutput(const std::string& out, H2loadRow& row) {
  std::smatch m;
  // "finished in 2.35s, 85010.65 req/s, 3.16MB/s"
  if (std::regex_search(out, m, std::regex(R"(finished in ([0-9.]+)(m?s), ([0-9.]+) req/s)"))) {
    row.finished_seconds = std::stod(m[1].str()) / (m[2].str() == "ms" ? 1000.0 : 1.0);
    row.req_per_second = std::stod(m[3].str());
  } else {
    row.error = "no 'finished in' line in h2load's output";
  }
  // "requests: 200000 total, 200000 started, 200000 done, 200000 succeeded, 0 failed, 0 errored, 0 timeout"
  row.total = MatchCount(out, R"(requests: (\d+) total)");
  row.done = MatchCount(out, R"((\d+) done)");
  row.succeeded = MatchCount(out, R"((\d+) succeeded)");
  row.failed = MatchCount(out, R"((\d+) failed)");
  row.errored = MatchCount(out, R"((\d+) errored)");
  row.timeout = MatchCount(out, R"((\d+) timeout)");
  // "status codes: 200000 2xx, 0 3xx, 0 4xx, 0 5xx"
  row.status_2xx = MatchCount(out, R"((\d+) 2xx)");
  row.status_3xx = MatchCount(out, R"((\d+) 3xx)");
  row.status_4xx = MatchCount(out, R"((\d+) 4xx)");
  row.status_5xx = MatchCount(out, R"((\d+) 5xx)");
}

H2loadRow RunH2load(const BenchFlags& flags, const pseudonym::PseudonymProcess& server) {
  H2loadRow row;
  TempDir dir;
  pseudonym::v1::CreatePseudonymRequest req;
  req.set_namespace_name("aftershock");
  req.set_original_value("h2load-bench-" + std::to_string(getpid()));
  const std::filesystem::path body = dir.path() / "create_request.grpc";
  {
    std::ofstream out(body, std::ios::binary);
    out << GrpcFrame(req.SerializeAsString());
    if (!out) throw std::runtime_error("cannot write " + body.string());
  }
  const std::filesystem::path log = dir.path() / "h2load.log";

  process::ChildOptions options;
  options.program = flags.h2load;
  options.args = {"-n", std::to_string(flags.h2load_requests),
                  "-c", std::to_string(flags.h2load_clients),
                  "-m", std::to_string(flags.h2load_streams),
                  "-t", "1",
                  "-H", "content-type: application/grpc",
                  "-H", "te: trailers",
                  "-d", body.string(),
                  "http://127.0.0.1:" + std::to_string(server.port()) +
                      "/aftershock.pseudonym.v1.PseudonymService/Create"};
  options.log_path = log.string();

  const std::optional<double> server_before = ProcessCpuSeconds(server.pid());
  const double children_before = ReapedChildrenCpuSeconds();
  try {
    process::ChildProcess child = process::ChildProcess::Start(options);
    try {
      row.exit_code = child.Wait(std::chrono::seconds(90));
    } catch (const std::exception& e) {
      row.exit_code = child.Stop(std::chrono::seconds(2));
      row.error = std::string("h2load did not finish in 90 s: ") + e.what();
    }
  } catch (const std::exception& e) {
    row.error = std::string("cannot run h2load: ") + e.what();
    return row;
  }
  row.h2load_cpu_seconds = ReapedChildrenCpuSeconds() - children_before;
  const std::optional<double> server_after = ProcessCpuSeconds(server.pid());
  if (server_before && server_after) row.server_cpu_seconds = *server_after - *server_before;

  std::ifstream in(log);
  const std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::cout << "--- h2load output ---\n" << out << "---------------------\n";
  row.ran = true;
  if (row.error.empty()) ParseH2loadOutput(out, row);
  if (row.error.empty() && row.exit_code != 0) row.error = "h2load exited with " + std::to_string(row.exit_code);
  if (row.error.empty() &&
      (row.status_2xx != static_cast<std::uint64_t>(flags.h2load_requests) || row.succeeded != row.status_2xx)) {
    row.error = "not every response was 2xx (" + std::to_string(row.status_2xx) + " 2xx of " +
                std::to_string(flags.h2load_requests) + ")";
  }

  // h2load sees HTTP statuses only; gRPC errors travel as HTTP 200 with a grpc-status trailer. A
  // read-only Lookup of the repeated original at least shows the Create was served and stored.
  auto stub = pseudonym::v1::PseudonymService::NewStub(
      grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  pseudonym::v1::LookupPseudonymRequest lookup;
  lookup.set_namespace_name(req.namespace_name());
  lookup.set_original_value(req.original_value());
  pseudonym::v1::Pseudonym resp;
  const grpc::Status s = stub->Lookup(&ctx, lookup, &resp);
  row.lookup_check = s.ok() ? "Lookup(original) after h2load: found " + resp.pseudonym_value() +
                                  " (the Create body was served at the gRPC level at least once)"
                            : "Lookup(original) after h2load FAILED: " + s.error_message() +
                                  " (the h2load requests may all have been gRPC errors)";
  return row;
}


// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

std::string PerThousand(double cpu_seconds, std::uint64_t calls) {
  return calls > 0 ? Fixed(cpu_seconds / static_cast<double>(calls) * 1000, 4) : "n/a";
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return in ? a + " " + b + " " + c : "unknown";
}


// The reference row's concurrency for a runner row: the runner's mean calls in flight at that rate
// (Little's law: rate x mean latency), so both batch about as much on the wire.
int ReferenceConcurrency(const RunnerRow& r) {
  return std::max(1, static_cast<int>(std::lround(r.rate * r.latency.Mean() / 1e9)));
}

double GeneratorUsPerCall(const RunnerRow& r) {
  return r.result.issued > 0 ? r.result.health.cpu_seconds / static_cast<double>(r.result.issued) * 1e6 : 0;
}

void PrintReport(const BenchFlags& flags, const std::vector<RunnerRow>& rows, const std::optional<H2loadRow>& h2,
                 const std::map<double, BareGrpcRow>& references, const std::map<double, BareGrpcRow>& paced) {
  std::cout << "\n## Open-model runner (aftershock OpenModelRunner, " << (flags.polled ? "polled" : "callback")
            << " gRPC API, " << flags.channels << " channel(s), "
            << Fixed(flags.seconds, 1) << " s per rate, deadline 2 s)\n\n"
            << "| offered/s | achieved/s | ach/off | ok | failed | shed | lag p50 ms | lag p99 ms | lag max ms "
               "| call p50 ms | call p99 ms | gen CPU s/1k calls | gen us/call | server CPU s/1k calls "
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
              << " | " << (issued > 0 ? Fixed(h.cpu_seconds / static_cast<double>(issued) * 1e6, 1) : "n/a") << " | "
              << (r.server_cpu_seconds ? PerThousand(*r.server_cpu_seconds, issued) : "n/a") << " | "
              << (h.generator_limited ? "yes" : "no") << (r.result.interrupted ? " (cut off)" : "") << " | "
              << (r.held ? "yes" : "no") << " |\n";
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

  std::cout << "\n## h2load (closed loop ceiling: -c " << flags.h2load_clients << " -m " << flags.h2load_streams
            << " -n " << flags.h2load_requests << " -t 1, same Create body repeated)\n\n";
  if (!h2) {
    std::cout << "skipped (--h2load= empty)\n";
  } else if (!h2->ran) {
    std::cout << "not run: " << h2->error << "\n";
  } else {
    std::cout << "| req/s | finished in s | done | succeeded | failed | errored | 2xx | 4xx | 5xx "
                 "| h2load CPU s/1k req | server CPU s/1k req |\n"
              << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
              << "| " << Fixed(h2->req_per_second, 0) << " | " << Fixed(h2->finished_seconds, 2) << " | " << h2->done
              << " | " << h2->succeeded << " | " << h2->failed << " | " << h2->errored << " | " << h2->status_2xx
              << " | " << h2->status_4xx << " | " << h2->status_5xx << " | "
              << PerThousand(h2->h2load_cpu_seconds, h2->done) << " | "
              << (h2->server_cpu_seconds ? PerThousand(*h2->server_cpu_seconds, h2->done) : "n/a") << " |\n\n";
    if (!h2->error.empty()) std::cout << "WARNING: " << h2->error << "\n";
    std::cout << "note: h2load checks HTTP status only; grpc-status (in the trailers) is invisible to it.\n"
              << h2->lookup_check << "\n";
  }

  std::cout << "\n## Reference: bare gRPC C++ callback client, closed loop (" << flags.channels
            << " channel(s), Create with a fresh ClientContext and a 2 s deadline per call, the next call issued "
               "from the completion callback; concurrency = the runner's mean calls in flight at that rate)\n\n";
  if (references.empty()) {
    std::cout << (flags.reference ? "no runner row to compare with\n" : "skipped (--reference=false)\n");
  } else {
    std::cout << "| for runner rate/s | mode | concurrency | calls/s | ok | failed | CPU us/call | runner us/call "
                 "| ratio |\n"
              << "|---:|:---|---:|---:|---:|---:|---:|---:|---:|\n";
    auto print = [&](double rate, const BareGrpcRow& ref, const char* mode) {
      const auto row = std::find_if(rows.begin(), rows.end(), [rate](const RunnerRow& r) { return r.rate == rate; });
      const double ours = GeneratorUsPerCall(*row);
      std::cout << "| " << Fixed(rate, 0) << " | " << mode << " | "
                << (ref.concurrency > 0 ? std::to_string(ref.concurrency) : std::string("-")) << " | "
                << Fixed(ref.rate(), 0) << " | " << ref.ok << " | " << ref.failed << " | "
                << Fixed(ref.cpu_us_per_call(), 1) << " | " << Fixed(ours, 1) << " | "
                << (ref.cpu_us_per_call() > 0 ? Fixed(ours / ref.cpu_us_per_call(), 3) : "n/a") << " |\n";
    };
    for (const auto& [rate, ref] : references) {
      print(rate, ref, "closed loop");
      if (const auto p = paced.find(rate); p != paced.end()) print(rate, p->second, "paced");
    }
    std::cout << "\nThe ratio line below is against the closed loop (issue 12's reference). The paced row is the "
                 "open model with nothing of aftershock around the client: its ratio is what aftershock's "
                 "bookkeeping adds at the same rate.\n";
  }

  // Summary.
  // Issue 12's held rate: held there and at every lower rate (HighestRateHeldThroughout).
  std::vector<double> row_rates;
  std::vector<bool> row_held, row_clean;
  for (const RunnerRow& r : rows) {
    row_rates.push_back(r.rate);
    row_held.push_back(r.held);
    row_clean.push_back(r.held && r.result.failed == 0 && r.result.shed == 0);
  }
  const auto held_index = HighestRateHeldThroughout(row_rates, row_held);
  const auto clean_index = HighestRateHeldThroughout(row_rates, row_clean);
  const RunnerRow* best_held = held_index ? &rows[*held_index] : nullptr;
  const RunnerRow* best_clean = clean_index ? &rows[*clean_index] : nullptr;  // and every call OK
  const bool have_h2 = h2 && h2->ran && h2->req_per_second > 0;
  std::cout << "\n## Summary\n\n";
  auto describe = [&](const char* label, const RunnerRow* r) {
    std::cout << label;
    if (!r) {
      std::cout << "none\n";
      return;
    }
    std::cout << Fixed(r->rate, 0) << " calls/s";
    if (have_h2) std::cout << " = " << Fixed(r->rate / h2->req_per_second, 3) << " x h2load's "
                           << Fixed(h2->req_per_second, 0) << " req/s";
    std::cout << "\n";
  };
  describe((std::string("highest rate the runner held, and held at every lower rate (") + kHeldRule + "): ").c_str(),
           best_held);
  describe("the same with every call OK (no failed):  ", best_clean);
  for (const RunnerRow& r : rows) {
    if (r.held && (!best_held || r.rate > best_held->rate)) {
      std::cout << "note: " << Fixed(r.rate, 0) << "/s held, but a lower rate did not: it does not count as held\n";
    }
  }

  // Issue 12's goals: CPU per call at most 1.25 x the bare client's (at 5000/s and at the highest
  // rate held), and the highest rate held at least 0.9 x h2load's ceiling.
  std::cout << "goal: generator CPU per call <= 1.25 x the bare gRPC client's at 5000/s and at the highest rate "
               "held, and that rate >= 0.9 x h2load's ceiling:";
  bool cpu_goal = best_held != nullptr;
  for (const RunnerRow& r : rows) {
    if (&r != best_held && r.rate != 5000) continue;
    const auto ref = references.find(r.rate);
    if (ref == references.end() || ref->second.cpu_us_per_call() <= 0) {
      cpu_goal = false;
      continue;
    }
    const double ratio = GeneratorUsPerCall(r) / ref->second.cpu_us_per_call();
    std::cout << " " << Fixed(ratio, 3) << " x at " << Fixed(r.rate, 0) << "/s;";
    if (ratio > 1.25 || (r.rate == 5000 && !r.held)) cpu_goal = false;
  }
  const bool rate_goal = best_held && have_h2 && best_held->rate >= 0.9 * h2->req_per_second;
  std::cout << " CPU " << (cpu_goal ? "MET" : "NOT MET") << ", rate "
            << (have_h2 ? (rate_goal ? "MET" : "NOT MET") : "not judged (no h2load ceiling)") << " in this run\n"
            << "machine: " << std::thread::hardware_concurrency() << " hardware threads; load average now "
            << LoadAverage() << "\n";
  // Issue 12's goal: generator CPU per call at most 1.25 x the bare client's, at 5000/s and at the
  // highest rate held. The last line is the machine-readable one (at the highest rate held).
  auto ratio_line = [&](const RunnerRow& r) {
    const auto ref = references.find(r.rate);
    if (ref == references.end()) return std::string();
    return FormatRatioLine({.generator_cpu_us_per_call = GeneratorUsPerCall(r),
                            .reference = "bare-grpc",
                            .reference_cpu_us_per_call = ref->second.cpu_us_per_call(),
                            .held_rate = best_held ? best_held->rate : 0,
                            .reference_rate = ref->second.rate()});
  };
  for (const RunnerRow& r : rows) {
    if (best_held && r.rate == 5000 && &r != best_held && references.count(r.rate) != 0) {
      std::cout << "at 5000/s: " << ratio_line(r) << "\n";
    }
  }
  if (best_held && references.count(best_held->rate) != 0) {
    std::cout << ratio_line(*best_held) << "\n";
  } else {
    // Nothing held: the line still comes, with held_rate=0 and the 5000/s row's figures if any.
    const auto five = std::find_if(rows.begin(), rows.end(), [](const RunnerRow& r) { return r.rate == 5000; });
    if (five != rows.end() && references.count(5000) != 0) std::cout << ratio_line(*five) << "\n";
  }
}

int Main(int argc, char** argv) {
  BenchFlags flags;
  try {
    flags = ParseFlags(argc, argv);
  } catch (const FlagError& e) {
    std::cerr << "runner_benchmark: " << e.what() << "\n" << kUsage;
    return 2;
  }
  if (flags.help) {
    std::cout << kUsage;
    return 0;
  }

  std::cout << "load average before: " << LoadAverage() << "\n";
  pseudonym::PseudonymProcess server = pseudonym::PseudonymProcess::Start({});
  std::cout << "server: aftershock-pseudonym pid " << server.pid() << " on " << server.address() << "\n";
  fixtures::PseudonymTarget target({server.address()}, {.channels = flags.channels, .poll_completions = flags.polled});
  std::cout << "runner's gRPC API: " << (flags.polled ? "polled CompletionQueue (GrpcAsyncUnaryWorkload)" : "callback (GrpcUnaryWorkload)")
            << "\n";
  target.EnsureNamespace();

  if (flags.warmup_seconds > 0) {
    std::cout << "warm-up: 1000/s for " << flags.warmup_seconds << " s (not reported)\n" << std::flush;
    RunAtRate(target, server.pid(), 1000, flags.warmup_seconds, flags);
  }
  // h2load first, on a server no overloaded rate has left a backlog in.
  std::optional<H2loadRow> h2;
  if (!flags.h2load.empty()) {
    std::cout << "h2load: -n " << flags.h2load_requests << " -c " << flags.h2load_clients << " -m "
              << flags.h2load_streams << " ...\n"
              << std::flush;
    h2 = RunH2load(flags, server);
  }

  // The bare client's rows run right after the runner's row they compare with (the 5000/s row and
  // every held row; the summary uses the highest held), before any higher rate: a rate the server
  // cannot take leaves it a backlog that would slow a reference measured after it (seen: 3 calls/s).
  std::vector<RunnerRow> rows;
  std::map<double, BareGrpcRow> references, paced;
  const std::string ns = fixtures::PseudonymTargetOptions{}.namespace_name;
  for (double rate : flags.rates) {
    std::cout << "runner: " << Fixed(rate, 0) << " calls/s for " << flags.seconds << " s ..." << std::flush;
    rows.push_back(RunAtRate(target, server.pid(), rate, flags.seconds, flags));
    const RunnerRow& row = rows.back();
    std::cout << " ok " << row.result.ok << ", failed " << row.result.failed << ", shed " << row.result.shed
              << (row.result.interrupted ? " (cut off)" : "") << "\n";
    if (!flags.reference || (!row.held && row.rate != 5000)) continue;
    const int concurrency = ReferenceConcurrency(row);
    std::cout << "reference: bare gRPC client, closed loop, concurrency " << concurrency << " for " << flags.seconds
              << " s ..." << std::flush;
    references[rate] = RunBareGrpcClosedLoop(server.address(), ns, flags.channels, concurrency, flags.seconds);
    std::cout << " " << Fixed(references[rate].rate(), 0) << " calls/s; paced at " << Fixed(rate, 0) << "/s ..."
              << std::flush;
    paced[rate] = RunBareGrpcPaced(server.address(), ns, flags.channels, rate, flags.seconds);
    std::cout << " done\n";
  }

  if (flags.inflight_probe) {
    std::cout << "\n## Memory: heap bytes per call in flight (2000/s, every call stalled 1 s by the server)\n"
              << std::flush;
    ProbeGrpcInFlightMemory(target, server.address());
  }

  if (flags.soak_seconds > 0) {
    RunSoak({.seconds = flags.soak_seconds, .rate = flags.soak_rate, .warmup_seconds = flags.soak_warmup_seconds,
             .coalesce_us = flags.coalesce_us, .compact = flags.soak_compact,
             .release_memory_after_pileup = flags.soak_release_pileup,
             .stall_at_seconds = flags.soak_stall_at,
             .server_address = server.address(),
             .row_every_seconds = flags.soak_seconds <= 60 ? 1 : 10},
            target);
  }

  const int server_exit = server.Stop();
  std::cout << "server stopped (exit code " << server_exit << ")\n";
  PrintReport(flags, rows, h2, references, paced);  // last: its final line is the machine-readable ratio
  return 0;
}

}  // namespace
}  // namespace aftershock::bench

int main(int argc, char** argv) {
  try {
    return aftershock::bench::Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "runner_benchmark: " << e.what() << "\n";
    return 1;
  }
}
