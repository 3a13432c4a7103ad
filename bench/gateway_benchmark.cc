// gateway_benchmark: aftershock-gateway's capacity on this machine and the cost of its shed path.
//
// Starts one PostgreSQL 15 (cluster::PostgresInstance) and aftershock-gateway against it, then:
//  1. capacity: drives POST /payments (GatewayTarget's workload: one fresh idempotency key per call)
//     with the open-model runner at a list of constant rates, the token bucket out of the way, so the
//     adaptive concurrency limit and the pool are what bound it. Goodput = acknowledged payments/s
//     (201 after COMMIT); the capacity is the highest goodput seen. Each payment holds its pool
//     connection for --backend-work-ms inside its transaction, so the ceiling is about
//     max_concurrency / (backend_work_ms + the database's own time).
//  2. shed path: a second gateway whose token bucket holds one token refilled once in 1000 s, so
//     every request after the first is shed (429) at the door: reject throughput and the gateway's
//     CPU per rejected request, open model (latency from the intended send time) and closed loop (wrk).
// Prints figures only; asserts nothing about speed (the machine is shared and noisy). Not a ctest test.
//
//   build/bench/gateway_benchmark --rates=100,200,300,400,600 --seconds=5
//   build/bench/gateway_benchmark --pool-size=20 --max-concurrency=16 --backend-work-ms=10 --shed-rate=10000
//
// Exit codes: 0 = ran (whatever the figures), 1 = the benchmark could not run, 2 = bad flags.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "bench/internal/bench_support.h"
#include "fixtures/targets/gateway/gateway_process.h"
#include "fixtures/targets/gateway/gateway_target.h"
#include "framework/cluster/postgres_instance.h"
#include "framework/common/call_code.h"
#include "framework/common/run_clock.h"
#include "framework/ledger/promise_ledger.h"
#include "framework/load/http_client.h"
#include "framework/load/http_workload.h"
#include "framework/load/open_model_runner.h"
#include "framework/load/rate_profile.h"
#include "framework/metrics/latency_histogram.h"
#include "framework/process/child_process.h"
#include "framework/process/scratch_dir.h"

namespace aftershock::bench {
namespace {

struct BenchFlags {
  std::vector<double> rates = {100, 200, 300, 400, 500, 700};
  double seconds = 5;
  int pool_size = 10;
  int backend_work_ms = 20;
  int max_concurrency = 8;
  int connections = 512;  // HttpWorkload keep-alive pool
  double shed_rate = 5000;
  double shed_seconds = 3;
  std::string wrk = "/usr/bin/wrk";  // empty: skip the closed-loop shed figure
  int wrk_connections = 32;
  int wrk_seconds = 3;
  bool help = false;
};

constexpr char kUsage[] =
    "usage: gateway_benchmark [flags]\n"
    "  --rates=R1,R2,...        offered payments/s for the capacity runs (default 100,200,300,400,500,700)\n"
    "  --seconds=S              seconds per rate (default 5)\n"
    "  --pool-size=N            aftershock-gateway --pool-size (default 10)\n"
    "  --backend-work-ms=N      aftershock-gateway --backend-work-ms (default 20)\n"
    "  --max-concurrency=N      aftershock-gateway --max-concurrency (default 8)\n"
    "  --connections=N          HttpWorkload keep-alive connections (default 512)\n"
    "  --shed-rate=R            offered requests/s for the open-model shed run (default 5000)\n"
    "  --shed-seconds=S         its length (default 3)\n"
    "  --wrk=PATH               wrk for the closed-loop shed run (default /usr/bin/wrk; empty: skip)\n"
    "  --wrk-connections=N      wrk -c (default 32)\n"
    "  --wrk-seconds=N          wrk -d (default 3)\n"
    "Dashes and underscores are interchangeable in flag names.\n";

BenchFlags ParseFlags(int argc, char** argv) {
  BenchFlags f;
  for (const FlagArg& flag : SplitFlags(argc, argv, &f.help)) {
    const std::string& name = flag.name;
    const std::string& value = flag.value;
    if (name == "rates") f.rates = ParseRates(value);
    else if (name == "seconds") f.seconds = ParsePositiveDouble(name, value);
    else if (name == "pool_size") f.pool_size = ParsePositiveInt(name, value);
    else if (name == "backend_work_ms") f.backend_work_ms = static_cast<int>(ParsePositiveDouble(name, value, true));
    else if (name == "max_concurrency") f.max_concurrency = ParsePositiveInt(name, value);
    else if (name == "connections") f.connections = ParsePositiveInt(name, value);
    else if (name == "shed_rate") f.shed_rate = ParsePositiveDouble(name, value);
    else if (name == "shed_seconds") f.shed_seconds = ParsePositiveDouble(name, value);
    else if (name == "wrk") f.wrk = value;
    else if (name == "wrk_connections") f.wrk_connections = ParsePositiveInt(name, value);
    else if (name == "wrk_seconds") f.wrk_seconds = ParsePositiveInt(name, value);
    else throw FlagError("unknown flag '--" + name + "'");
  }
  return f;
}

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return in ? a + " " + b + " " + c : "unknown";
}

double Metric(const gateway::GatewayProcess& gw, const std::string& series) {
  const load::HttpReply r = load::HttpFetch(gw.address(), {.target = "/metrics"}, std::chrono::seconds(5));
  const std::string prefix = series + " ";
  const auto pos = r.body.find("\n" + prefix);
  return pos == std::string::npos ? -1 : std::stod(r.body.substr(pos + 1 + prefix.size()));
}

struct Row {
  double offered = 0;
  load::RunResult result;
  std::map<CallCode, std::uint64_t> failed_by_code;
  metrics::LatencyHistogram ok_latency;
  metrics::LatencyHistogram all_latency;
  std::optional<double> gateway_cpu_seconds;
  double seconds = 0;
};

// One constant-rate run of GatewayTarget's payments workload (fresh keys per run).
Row RunPayments(const gateway::GatewayProcess& gw, double rate, double seconds, int connections) {
  gateway::GatewayTarget target(gw.address(), {.max_connections = connections});
  ledger::PromiseLedger ledger;
  const RunClock clock = RunClock::StartNow();
  std::unique_ptr<load::Workload> workload = target.MakeWorkload(ledger, clock);
  load::RunnerOptions options;
  options.profile = load::RateProfile::Constant(rate, seconds);
  options.call_deadline = std::chrono::seconds(5);
  options.max_in_flight = connections;
  options.policy = target.Policy();
  const auto give_up = clock.start() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(2 * seconds + 2));
  options.stop_requested = [give_up] { return Clock::now() > give_up; };
  Row row;
  row.offered = rate;
  row.seconds = seconds;
  const std::optional<double> before = ProcessCpuSeconds(gw.pid());
  row.result = load::OpenModelRunner(*workload, std::move(options), clock).Run();
  const std::optional<double> after = ProcessCpuSeconds(gw.pid());
  if (before && after) row.gateway_cpu_seconds = *after - *before;
  for (const metrics::SecondBucket& b : row.result.timeline.seconds()) {
    row.ok_latency.Merge(b.ok_latency);
    row.all_latency.Merge(b.latency);
    for (const auto& [code, n] : b.failed_by_code) row.failed_by_code[code] += n;
  }
  return row;
}

double Ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

std::string Codes(const std::map<CallCode, std::uint64_t>& codes) {
  std::string out;
  for (const auto& [code, n] : codes) out += (out.empty() ? "" : ", ") + CallCodeName(code) + " " + std::to_string(n);
  return out.empty() ? "-" : out;
}

struct WrkFigures {
  std::string error;
  double req_per_second = 0;
  std::uint64_t requests = 0;
  std::uint64_t non_2xx = 0;
  std::optional<double> gateway_cpu_seconds;
  std::string p50, p99;
};

// wrk POSTing payments that the gateway sheds at the door (its bucket is empty).
WrkFigures RunWrkShed(const BenchFlags& flags, const gateway::GatewayProcess& gw) {
  WrkFigures w;
  process::ScratchDir dir = process::ScratchDir::Create("aftershock-gwbench");
  {
    std::ofstream script(dir.path() + "/post.lua");
    script << "wrk.method = \"POST\"\nwrk.body = '{\"amount_cents\":100}'\n"
              "wrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.headers[\"Idempotency-Key\"] = \"bench-shed\"\n";
  }
  process::ChildOptions options;
  options.program = flags.wrk;
  options.args = {"-t1", "-c" + std::to_string(flags.wrk_connections), "-d" + std::to_string(flags.wrk_seconds) + "s",
                  "--latency", "-s", dir.path() + "/post.lua", "http://" + gw.address() + "/payments"};
  options.log_path = dir.path() + "/wrk.log";
  const std::optional<double> before = ProcessCpuSeconds(gw.pid());
  try {
    process::ChildProcess child = process::ChildProcess::Start(options);
    try {
      if (const int code = child.Wait(std::chrono::seconds(flags.wrk_seconds + 30)); code != 0) {
        w.error = "wrk exited with " + std::to_string(code);
      }
    } catch (const std::exception& e) {
      child.Stop(std::chrono::seconds(2));
      w.error = e.what();
    }
  } catch (const std::exception& e) {
    w.error = std::string("cannot run wrk: ") + e.what();
    return w;
  }
  const std::optional<double> after = ProcessCpuSeconds(gw.pid());
  if (before && after) w.gateway_cpu_seconds = *after - *before;
  std::ifstream in(options.log_path);
  const std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::smatch m;
  if (std::regex_search(out, m, std::regex(R"(Requests/sec:\s+([0-9.]+))"))) w.req_per_second = std::stod(m[1].str());
  if (std::regex_search(out, m, std::regex(R"((\d+) requests in)"))) w.requests = std::stoull(m[1].str());
  if (std::regex_search(out, m, std::regex(R"(Non-2xx or 3xx responses: (\d+))"))) w.non_2xx = std::stoull(m[1].str());
  if (std::regex_search(out, m, std::regex(R"(\n\s+50%\s+(\S+))"))) w.p50 = m[1].str();
  if (std::regex_search(out, m, std::regex(R"(\n\s+99%\s+(\S+))"))) w.p99 = m[1].str();
  if (w.error.empty() && w.req_per_second == 0) w.error = "no Requests/sec in wrk's output:\n" + out;
  return w;
}

int Main(int argc, char** argv) {
  BenchFlags flags;
  try {
    flags = ParseFlags(argc, argv);
  } catch (const FlagError& e) {
    std::cerr << "gateway_benchmark: " << e.what() << "\n" << kUsage;
    return 2;
  }
  if (flags.help) {
    std::cout << kUsage;
    return 0;
  }
  std::cout << "load average before: " << LoadAverage() << "; " << std::thread::hardware_concurrency()
            << " hardware threads\n";
  cluster::PostgresInstance pg = cluster::PostgresInstance::Start(
      {.database = "gateway_bench", .max_connections = 2 * flags.pool_size + 20});
  std::cout << "PostgreSQL 15: initdb " << Fixed(pg.timings().initdb_seconds, 2) << " s, start + CREATE DATABASE "
            << Fixed(pg.timings().start_seconds, 2) << " s (fsync on)\n";

  // 1. Capacity.
  const std::vector<std::string> knobs = {"--pool-size=" + std::to_string(flags.pool_size),
                                          "--backend-work-ms=" + std::to_string(flags.backend_work_ms),
                                          "--max-concurrency=" + std::to_string(flags.max_concurrency)};
  std::vector<std::string> capacity_args = knobs;
  capacity_args.insert(capacity_args.end(), {"--rate=1000000", "--burst=1000000"});
  gateway::GatewayProcess gw = gateway::GatewayProcess::Start({.db = pg.conninfo(), .extra_args = capacity_args});
  std::cout << "gateway: pid " << gw.pid() << ", pool " << flags.pool_size << ", backend work " << flags.backend_work_ms
            << " ms, concurrency limit <= " << flags.max_concurrency << " (token bucket out of the way)\n";
  RunPayments(gw, flags.rates.front(), 1, flags.connections);  // warm-up, not reported
  std::vector<Row> rows;
  for (double rate : flags.rates) {
    std::cout << "payments: " << Fixed(rate, 0) << "/s for " << flags.seconds << " s ..." << std::flush;
    rows.push_back(RunPayments(gw, rate, flags.seconds, flags.connections));
    std::cout << " ok " << rows.back().result.ok << ", failed " << rows.back().result.failed << "\n";
  }
  const double pool_max = Metric(gw, "gateway_db_pool_in_use_max");

  std::cout << "\n## Capacity (POST /payments, open model, " << Fixed(flags.seconds, 0) << " s per rate, deadline 5 s)\n\n"
            << "| offered/s | goodput (acks/s) | shed 503/s | other failures | ok p50 ms | ok p99 ms | all p99 ms "
               "| gateway CPU ms/req |\n|---:|---:|---:|:---|---:|---:|---:|---:|\n";
  const Row* best = nullptr;
  for (const Row& r : rows) {
    const double goodput = static_cast<double>(r.result.ok) / r.seconds;
    std::map<CallCode, std::uint64_t> others = r.failed_by_code;
    const std::uint64_t shed503 = others.count(503) != 0 ? others[503] : 0;
    others.erase(503);
    const std::uint64_t issued = std::max<std::uint64_t>(r.result.issued, 1);
    std::cout << "| " << Fixed(r.offered, 0) << " | " << Fixed(goodput, 1) << " | "
              << Fixed(static_cast<double>(shed503) / r.seconds, 1) << " | " << Codes(others) << " | "
              << Fixed(Ms(r.ok_latency.ValueAtPercentile(50)), 1) << " | " << Fixed(Ms(r.ok_latency.ValueAtPercentile(99)), 1)
              << " | " << Fixed(Ms(r.all_latency.ValueAtPercentile(99)), 1) << " | "
              << (r.gateway_cpu_seconds ? Fixed(*r.gateway_cpu_seconds * 1000 / static_cast<double>(issued), 3) : "n/a")
              << " |\n";
    if (!best || r.result.ok > best->result.ok) best = &r;
  }
  const double capacity = static_cast<double>(best->result.ok) / best->seconds;
  const double bound = flags.max_concurrency / (flags.backend_work_ms / 1000.0);
  std::cout << "\ncapacity (max goodput): " << Fixed(capacity, 1) << " acknowledged payments/s at " << Fixed(best->offered, 0)
            << "/s offered; bound max_concurrency/backend_work = " << Fixed(bound, 0) << "/s ("
            << Fixed(100 * capacity / bound, 0) << "%); pool in use max " << pool_max << " of " << flags.pool_size << "\n";
  gw.Stop();

  // 2. The shed path: every request after the first is shed by the empty bucket.
  std::vector<std::string> shed_args = knobs;
  shed_args.insert(shed_args.end(), {"--rate=0.001", "--burst=1"});
  gateway::GatewayProcess shedder = gateway::GatewayProcess::Start({.db = pg.conninfo(), .extra_args = shed_args});
  std::cout << "\nshed path: " << Fixed(flags.shed_rate, 0) << "/s for " << flags.shed_seconds << " s ..." << std::flush;
  const Row shed = RunPayments(shedder, flags.shed_rate, flags.shed_seconds, flags.connections);
  const std::uint64_t rejected = shed.failed_by_code.count(429) != 0 ? shed.failed_by_code.at(429) : 0;
  std::cout << " rejected " << rejected << "\n\n## Shed path (token bucket empty: 429 + Retry-After at the door)\n\n"
            << "| run | rejected/s | rejected | shed p50 ms | shed p99 ms | shed max ms | gateway CPU us/rejected |\n"
            << "|:---|---:|---:|---:|---:|---:|---:|\n"
            << "| open model " << Fixed(flags.shed_rate, 0) << "/s | " << Fixed(static_cast<double>(rejected) / flags.shed_seconds, 0)
            << " | " << rejected << " | " << Fixed(Ms(shed.all_latency.ValueAtPercentile(50)), 3) << " | "
            << Fixed(Ms(shed.all_latency.ValueAtPercentile(99)), 3) << " | " << Fixed(Ms(shed.all_latency.Max()), 2)
            << " | "
            << (shed.gateway_cpu_seconds && rejected > 0
                    ? Fixed(*shed.gateway_cpu_seconds * 1e6 / static_cast<double>(rejected), 1)
                    : "n/a")
            << " |\n";
  if (!flags.wrk.empty()) {
    const WrkFigures w = RunWrkShed(flags, shedder);
    if (!w.error.empty()) {
      std::cout << "| wrk | not run: " << w.error << " |\n";
    } else {
      std::cout << "| wrk closed loop -c" << flags.wrk_connections << " | " << Fixed(w.req_per_second, 0) << " | "
                << w.requests << " | " << w.p50 << " | " << w.p99 << " | - | "
                << (w.gateway_cpu_seconds && w.requests > 0
                        ? Fixed(*w.gateway_cpu_seconds * 1e6 / static_cast<double>(w.requests), 1)
                        : "n/a")
                << " |\n";
      if (w.non_2xx != w.requests) std::cout << "note: " << w.requests - w.non_2xx << " wrk requests were not shed\n";
    }
  }
  std::cout << "\nshed responses counted by the gateway: " << Metric(shedder, "gateway_requests_shed_total{code=\"429\"}")
            << "; pool in use max " << Metric(shedder, "gateway_db_pool_in_use_max")
            << " (the first request only)\nload average after: " << LoadAverage() << "\n";
  return 0;
}

}  // namespace
}  // namespace aftershock::bench

int main(int argc, char** argv) {
  try {
    return aftershock::bench::Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "gateway_benchmark: " << e.what() << "\n";
    return 1;
  }
}
