// aftershock-loadgen: open-model load from several processes sharing one schedule, merged exactly.
//
//   aftershock-loadgen run --target=127.0.0.1:8080 --path=/work --rate=3000 --seconds=60
//       --worker=0 --workers=2 --start_unix_ms=<T> --out=DIR      # one per worker, same T
//   aftershock-loadgen merge --dir=DIR --workers=2 --max_outage_seconds=5 --max_unavailable_seconds=10
//   aftershock-loadgen merge --dir=EMPTY --logs=pod-0.log,pod-1.log --workers=2   # files from the logs
//   aftershock-loadgen merge --dir=DIR --workers=2 --verify=true   # + the promise gates (pseudonym)
//
// Worker k of N issues every N-th arrival of the profile (sequence % N == k) on a clock that
// starts at T for all of them, and writes its per-second histograms, counts, dispatch lag and
// health into DIR, and with --kind=pseudonym every promise into its ledger
// (tools/loadgen/worker_run.h). `merge` merges them bucket by bucket and record by record (the
// merged ledger: DIR/merged.ledger), judges the gates once on the merged run (with --verify=true
// also the promise gates, reading every merged promise back from the service) and exits 1 when
// any gate is red (a missing or truncated worker file is: workers-complete). Exit 2: bad flags.
// docs/loadgen.md.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures/targets/pseudonym/adapter/pseudonym_target.h"
#include "framework/ledger/ledger_stream.h"
#include "framework/ledger/promise_ledger.h"
#include "framework/load/http_workload.h"
#include "framework/load/open_model_runner.h"
#include "framework/metrics/load_timeline.h"
#include "tools/loadgen/worker_log.h"
#include "tools/loadgen/worker_run.h"
#include "tools/verify/pseudonym_verifier_factory.h"
#include "tools/verify/verify_command.h"

namespace aftershock::loadgen {
namespace {

class FlagError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr char kUsage[] =
    "usage: aftershock-loadgen run --target=HOST:PORT --rate=R --seconds=S --worker=K --workers=N\n"
    "                              --start_unix_ms=T --out=DIR [--path=/] [--deadline_ms=2000]\n"
    "                              [--max_in_flight=10000] [--coalesce_us=0] [--wake_slice_us=0] [--latencies=FILE]\n"
    "                              [--emit=stdout] [--allow_non_loopback=true] [--kind=http|pseudonym]\n"
    "                              [--max_dispatch_lag_ms=10] [--require_body=false] [--allow_empty_body=false]\n"
    "       aftershock-loadgen merge --dir=DIR --workers=N [--logs=LOG[,LOG...]] [--max_outage_seconds=5]\n"
    "                                [--max_unavailable_seconds=10] [--csv=FILE] [--verify=false]\n"
    "                                [--allow_non_loopback=false] [--target_address=HOST:PORT]\n";

// --name=value pairs; every flag must be known to the command and appear once.
std::map<std::string, std::string> ParseFlags(int argc, char** argv, const std::vector<std::string>& known) {
  std::map<std::string, std::string> flags;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) throw FlagError("'" + arg + "' is not --name=value");
    const std::string name = arg.substr(2, eq - 2);
    if (std::find(known.begin(), known.end(), name) == known.end()) throw FlagError("unknown flag --" + name);
    if (!flags.emplace(name, arg.substr(eq + 1)).second) throw FlagError("--" + name + " given twice");
  }
  return flags;
}

const std::string& Required(const std::map<std::string, std::string>& flags, const std::string& name) {
  const auto it = flags.find(name);
  if (it == flags.end() || it->second.empty()) throw FlagError("--" + name + " is required");
  return it->second;
}

template <typename T>
T Integer(const std::map<std::string, std::string>& flags, const std::string& name, std::optional<T> fallback,
          T min) {
  const auto it = flags.find(name);
  if (it == flags.end()) {
    if (!fallback) throw FlagError("--" + name + " is required");
    return *fallback;
  }
  T v{};
  const std::string& s = it->second;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < min) {
    throw FlagError("--" + name + ": expected an integer >= " + std::to_string(min) + ", got '" + s + "'");
  }
  return v;
}

double Positive(const std::map<std::string, std::string>& flags, const std::string& name, std::optional<double> fallback) {
  const auto it = flags.find(name);
  if (it == flags.end()) {
    if (!fallback) throw FlagError("--" + name + " is required");
    return *fallback;
  }
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (it->second.empty() || used != it->second.size() || !(v > 0)) {
    throw FlagError("--" + name + ": expected a number > 0, got '" + it->second + "'");
  }
  return v;
}

// The SLO gates' objectives from --slo_success_ratio=0.99 and --slo_latency=p99:800,p50:120 (bounds
// in ms), the same objectives a manifest's `slo:` declares (framework/config/slo_spec.h).
config::SloSpec SloFromFlags(const std::map<std::string, std::string>& flags) {
  config::SloSpec slo;
  slo.source = "aftershock-loadgen merge flags";
  if (flags.count("slo_success_ratio")) {
    const double ratio = Positive(flags, "slo_success_ratio", std::nullopt);
    if (ratio > 1) throw FlagError("--slo_success_ratio: expected a ratio in (0, 1], got '" + flags.at("slo_success_ratio") + "'");
    slo.success_ratio = ratio;
  }
  if (flags.count("slo_latency")) {
    std::istringstream items(flags.at("slo_latency"));
    for (std::string item; std::getline(items, item, ',');) {
      const std::size_t colon = item.find(':');
      double percentile = 0, ms = 0;
      bool ok = item.size() > 1 && item[0] == 'p' && colon != std::string::npos;
      if (ok) {
        try {
          std::size_t used = 0;
          percentile = std::stod(item.substr(1, colon - 1), &used);
          ok = used == colon - 1;
          ms = std::stod(item.substr(colon + 1), &used);
          ok = ok && used == item.size() - colon - 1;
        } catch (const std::exception&) {
          ok = false;
        }
      }
      if (!ok || !(percentile > 0 && percentile <= 100) || !(ms > 0)) {
        throw FlagError("--slo_latency: '" + item + "' is not pN:MS (e.g. p99:800: the 99th percentile within 800 ms)");
      }
      slo.latency.push_back({.label = item.substr(0, colon), .percentile = percentile, .max_seconds = ms / 1000});
    }
    std::sort(slo.latency.begin(), slo.latency.end(),
              [](const auto& a, const auto& b) { return a.percentile < b.percentile; });
  }
  return slo;
}

// --name=true|false; absent is false.
bool Boolean(const std::map<std::string, std::string>& flags, const std::string& name) {
  const auto it = flags.find(name);
  if (it == flags.end()) return false;
  if (it->second != "true" && it->second != "false") {
    throw FlagError("--" + name + ": expected true or false, got '" + it->second + "'");
  }
  return it->second == "true";
}

int Run(int argc, char** argv) {
  const auto flags = ParseFlags(argc, argv,
                                {"target", "path", "rate", "seconds", "worker", "workers", "start_unix_ms", "out",
                                 "deadline_ms", "max_in_flight", "coalesce_us", "wake_slice_us", "latencies", "emit",
                                 "allow_non_loopback", "kind", "max_dispatch_lag_ms", "require_body",
                                 "allow_empty_body"});
  const std::string target = Required(flags, "target");
  const double rate = Positive(flags, "rate", std::nullopt);
  const double seconds = Positive(flags, "seconds", std::nullopt);
  const int workers = Integer<int>(flags, "workers", std::nullopt, 1);
  const int worker = Integer<int>(flags, "worker", std::nullopt, 0);
  if (worker >= workers) throw FlagError("--worker=" + std::to_string(worker) + " is not below --workers=" + std::to_string(workers));
  const auto start_unix_ms = Integer<std::int64_t>(flags, "start_unix_ms", std::nullopt, 0);
  const std::filesystem::path out = Required(flags, "out");
  const int deadline_ms = Integer<int>(flags, "deadline_ms", 2000, 1);
  const int max_in_flight = Integer<int>(flags, "max_in_flight", 10000, 1);
  const int coalesce_us = Integer<int>(flags, "coalesce_us", 0, 0);
  const int wake_slice_us = Integer<int>(flags, "wake_slice_us", 0, 0);
  // The dispatch lag p99 above which this worker calls itself generator-limited (the runner's
  // max_lag_p99_ms; a scenario's knob max_dispatch_lag_seconds).
  const double max_dispatch_lag_ms = Positive(flags, "max_dispatch_lag_ms", load::RunnerOptions{}.max_lag_p99_ms);
  if (!std::filesystem::is_directory(out)) throw FlagError("--out=" + out.string() + " is not a directory");
  const std::string kind = flags.count("kind") ? flags.at("kind") : "http";
  if (kind != "http" && kind != "pseudonym") throw FlagError("--kind: expected http or pseudonym, got '" + kind + "'");
  if (kind == "pseudonym" && (flags.count("latencies") || flags.count("path") || flags.count("require_body") ||
                              flags.count("allow_empty_body"))) {
    throw FlagError("--latencies, --path, --require_body and --allow_empty_body are for --kind=http");
  }
  // The HTTP body contract (load::HttpWorkloadOptions): by default a GET's 2xx with an empty body is
  // a contract violation, not a success.
  const bool require_body = Boolean(flags, "require_body");
  const bool allow_empty_body = Boolean(flags, "allow_empty_body");
  if (require_body && allow_empty_body) throw FlagError("--require_body=true and --allow_empty_body=true contradict");
  // A pod's --out dies with it: --emit=stdout also prints the files into its log (worker_log.h).
  const bool emit_stdout = flags.count("emit") != 0;
  if (emit_stdout && flags.at("emit") != "stdout") throw FlagError("--emit: expected stdout, got '" + flags.at("emit") + "'");
  // Load goes to 127.0.0.0/8 unless a run explicitly allows otherwise (a Service in a cluster).
  const bool allow_non_loopback = Boolean(flags, "allow_non_loopback");

  // The pseudonym service's namespace exists before the schedule starts (each worker asks; an
  // existing one is fine).
  std::unique_ptr<fixtures::PseudonymTarget> pseudonym;
  if (kind == "pseudonym") {
    std::vector<std::string> addresses;
    std::istringstream list(target);
    for (std::string a; std::getline(list, a, ',');) addresses.push_back(a);
    fixtures::PseudonymTargetOptions pseudonym_options;
    pseudonym_options.allow_non_loopback = allow_non_loopback;
    pseudonym = std::make_unique<fixtures::PseudonymTarget>(addresses, pseudonym_options);
    pseudonym->EnsureNamespace(std::chrono::seconds(30));
  }

  // One clock for every worker: the steady start that corresponds to the shared unix start.
  const auto wall_now = std::chrono::system_clock::now();
  const std::int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(wall_now.time_since_epoch()).count();
  if (start_unix_ms < now_ms - 1000) {
    throw FlagError("--start_unix_ms is " + std::to_string(now_ms - start_unix_ms) +
                    " ms in the past: this worker would start its schedule late (give every worker a start a few "
                    "seconds ahead)");
  }
  const RunClock clock(Clock::now() + std::chrono::milliseconds(start_unix_ms - now_ms), start_unix_ms);

  std::mutex mu;
  std::vector<std::int64_t> latencies;
  const bool keep_latencies = flags.count("latencies") != 0;
  load::RunnerOptions options;
  // The workload: HTTP GET (any HTTP service), or the reference pseudonym service's gRPC Create.
  std::unique_ptr<load::Workload> workload;
  // The promises a pseudonym worker is given; bounded, not verified by the worker (docs/loadgen.md).
  ledger::PromiseLedger promises(ledger::LedgerOptions{.capacity = 10000, .fault_capacity = 10000});
  if (kind == "http") {
    workload = std::make_unique<load::HttpWorkload>(load::HttpWorkloadOptions{
        .target = target,
        .allow_non_loopback = allow_non_loopback,
        .path = flags.count("path") ? flags.at("path") : "/",
        .max_connections = max_in_flight,
        .require_body = require_body,
        .allow_empty_body = allow_empty_body,
        .on_final = [&](const load::HttpCallResult&, const load::FinalOutcome& o) {
          if (!keep_latencies) return;
          std::lock_guard<std::mutex> lock(mu);
          latencies.push_back((o.completed - o.intended).count());
        }});
    options.policy = load::HttpOutcomePolicy();
  } else {
    // Every promise into worker-<k>.ledger as it is made (exhaustive; the bounded ledger above is
    // only the workload's), so the coordinator can merge and verify them all.
    ledger::LedgerHeader header = pseudonym->Identity();
    header.emplace_back(kLedgerWorker, std::to_string(worker));
    header.emplace_back(kLedgerWorkers, std::to_string(workers));
    header.emplace_back(kLedgerStartUnixMs, std::to_string(start_unix_ms));
    promises.AttachStream(ledger::LedgerStream::Open(LedgerPath(out, worker).string(), header));
    workload = pseudonym->MakeWorkload(promises, clock);
    options.policy = pseudonym->Policy();
  }
  options.profile = load::RateProfile::Constant(rate, seconds);
  options.call_deadline = std::chrono::milliseconds(deadline_ms);
  options.max_in_flight = max_in_flight;
  options.dispatch_coalesce = std::chrono::microseconds(coalesce_us);
  options.wake_slice = std::chrono::microseconds(wake_slice_us);
  options.max_lag_p99_ms = max_dispatch_lag_ms;
  options.shard = worker;
  options.shard_count = workers;
  std::cerr << "aftershock-loadgen: worker " << worker << " of " << workers << ", " << rate << "/s for " << seconds
            << " s from unix ms " << start_unix_ms << " against " << target << "\n";
  const load::RunResult result = load::OpenModelRunner(*workload, options, clock).Run();

  if (keep_latencies) {
    std::ofstream raw(flags.at("latencies"));
    for (const std::int64_t ns : latencies) raw << ns << "\n";
    if (!raw) throw std::runtime_error("cannot write --latencies=" + flags.at("latencies"));
  }
  if (pseudonym) promises.CloseStream();  // the end line: this worker's promises are all there
  WriteWorkerFiles(out, {.worker = worker, .workers = workers, .start_unix_ms = start_unix_ms}, result.timeline,
                   result.health, /*with_ledger=*/pseudonym != nullptr);
  if (emit_stdout) EmitWorkerFiles(std::cout, out, worker);
  std::cerr << "aftershock-loadgen: worker " << worker << " done: " << result.issued << " issued, " << result.ok
            << " ok, " << result.failed << " failed, " << result.shed << " shed"
            << (result.health.generator_limited ? "; generator-limited: " + result.health.reason : "") << "\n";
  return 0;
}

int Merge(int argc, char** argv) {
  const auto flags =
      ParseFlags(argc, argv, {"dir", "workers", "logs", "max_outage_seconds", "max_unavailable_seconds",
                              "max_gap_seconds", "max_latency_p99_seconds", "max_retries_per_call", "slo_success_ratio",
                              "slo_latency", "csv", "verify",
                              "allow_non_loopback", "target_address"});
  const std::filesystem::path dir = Required(flags, "dir");
  const int workers = Integer<int>(flags, "workers", std::nullopt, 1);
  if (flags.count("logs")) {
    // The workers' logs (kubectl logs of each pod): their files into --dir first.
    if (!std::filesystem::is_directory(dir)) throw FlagError("--dir=" + dir.string() + " is not a directory");
    std::istringstream names(Required(flags, "logs"));
    for (std::string name; std::getline(names, name, ',');) {
      std::ifstream in(name);
      if (!in) throw FlagError("--logs: cannot read '" + name + "'");
      std::ostringstream text;
      text << in.rdbuf();
      const RecoveredFiles recovered = RecoverWorkerFiles(text.str(), name, dir);
      for (const std::string& problem : recovered.problems) std::printf("recovering: %s\n", problem.c_str());
      std::printf("recovered %zu file(s) from %s\n", recovered.written.size(), name.c_str());
    }
  }
  gates::GateBudgets budgets;
  budgets.max_outage_seconds = Positive(flags, "max_outage_seconds", 5);
  budgets.max_unavailable_seconds = Positive(flags, "max_unavailable_seconds", 10);
  if (flags.count("max_gap_seconds")) budgets.max_gap_seconds = Positive(flags, "max_gap_seconds", std::nullopt);
  if (flags.count("max_latency_p99_seconds")) {
    budgets.max_latency_p99_seconds = Positive(flags, "max_latency_p99_seconds", std::nullopt);
  }
  if (flags.count("max_retries_per_call")) {
    // 0 is a budget too (no retry allowed): Positive's check, shifted.
    const std::string& text = flags.at("max_retries_per_call");
    if (text == "0") {
      budgets.max_retries_per_call = 0;
    } else {
      budgets.max_retries_per_call = Positive(flags, "max_retries_per_call", std::nullopt);
    }
  }
  const bool verify = Boolean(flags, "verify");
  if (flags.count("target_address") && !verify) throw FlagError("--target_address is for --verify=true");
  const bool allow_non_loopback = Boolean(flags, "allow_non_loopback");
  std::optional<config::SloSpec> slo;
  if (flags.count("slo_success_ratio") || flags.count("slo_latency")) slo = SloFromFlags(flags);
  const MergedRun run = MergeWorkerRun(dir, workers, budgets, slo);
  if (flags.count("csv")) {
    std::ofstream csv(flags.at("csv"));
    metrics::WriteLoadTimelineCsv(run.timeline, csv);
    if (!csv) throw std::runtime_error("cannot write --csv=" + flags.at("csv"));
  }
  std::uint64_t offered = 0, ok = 0, failed = 0, shed = 0;
  metrics::LatencyHistogram latency;
  for (const metrics::SecondBucket& s : run.timeline.seconds()) {
    offered += s.offered;
    ok += s.ok;
    failed += s.failed;
    shed += s.shed;
    latency.Merge(s.latency);
  }
  std::printf("merged %d worker(s): offered %llu, ok %llu, failed %llu, shed %llu; latency p50 %.3f ms, p99 %.3f ms, "
              "max %.3f ms\n",
              workers, static_cast<unsigned long long>(offered), static_cast<unsigned long long>(ok),
              static_cast<unsigned long long>(failed), static_cast<unsigned long long>(shed),
              static_cast<double>(latency.ValueAtPercentile(50)) / 1e6,
              static_cast<double>(latency.ValueAtPercentile(99)) / 1e6, static_cast<double>(latency.Max()) / 1e6);
  for (std::size_t k = 0; k < run.workers.size(); ++k) {
    const metrics::GeneratorHealth& h = run.workers[k];
    std::printf("worker %zu: scheduled %llu, dispatched %llu, achieved %.1f/s of %.1f/s, lag p99 %.3f ms%s\n", k,
                static_cast<unsigned long long>(h.scheduled), static_cast<unsigned long long>(h.dispatched),
                h.achieved_rate, h.offered_rate, h.lag_p99_ms, h.generator_limited ? ", generator-limited" : "");
  }
  std::printf("merged: achieved %.1f/s of %.1f/s, lag p99 %.3f ms (from the merged histograms)\n",
              run.merged.achieved_rate, run.merged.offered_rate, run.merged.lag_p99_ms);
  std::printf("%s", run.report.c_str());
  std::fflush(stdout);
  if (!run.ledger) {
    if (verify) {
      std::printf("FAIL promises: --verify=true, but no merged ledger: %s\n",
                  run.passed ? "the workers kept none (only --kind=pseudonym workers do)"
                             : "the workers' files did not merge (workers-complete above)");
      return 1;
    }
    return run.passed ? 0 : 1;
  }
  // The merged ledger: every worker's promises in arrival order, for aftershock-verify or below.
  const std::filesystem::path merged_ledger = dir / "merged.ledger";
  ledger::WriteLedgerFile(merged_ledger.string(), *run.ledger);
  std::printf("merged ledger: %zu promise(s), %zu indeterminate, from %d worker(s): %s\n", run.ledger->promises.size(),
              run.ledger->indeterminate.size(), workers, merged_ledger.c_str());
  if (!verify) return run.passed ? 0 : 1;
  // The promise gates on the merged run: every promise read back from the service in its header.
  std::fflush(stdout);
  // --target_address: where this process reaches the service (a port-forward), instead of the
  // workers' address in the ledger's header.
  std::vector<std::string> verify_args = {"--ledger=" + merged_ledger.string()};
  if (flags.count("target_address")) {
    verify_args.push_back("--target-arg=target.addresses=" + Required(flags, "target_address"));
  }
  const int verified = verify::RunVerifyCommand(verify_args, {verify::PseudonymVerifierFactory(allow_non_loopback)},
                                                std::cout, std::cerr);
  std::cout.flush();
  return run.passed && verified == 0 ? 0 : 1;
}

}  // namespace
}  // namespace aftershock::loadgen

int main(int argc, char** argv) {
  using namespace aftershock::loadgen;
  const std::string command = argc > 1 ? argv[1] : "";
  try {
    if (command == "run") return Run(argc, argv);
    if (command == "merge") return Merge(argc, argv);
    std::cerr << kUsage;
    return 2;
  } catch (const FlagError& e) {
    std::cerr << "aftershock-loadgen " << command << ": " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "aftershock-loadgen " << command << ": " << e.what() << "\n";
    return 1;
  }
}
