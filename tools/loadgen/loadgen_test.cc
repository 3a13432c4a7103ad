// aftershock-loadgen end to end: real worker processes against an in-process HTTP target.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "framework/config/test_time_scale.h"
#include "framework/load/http_test_server.h"
#include "framework/process/child_process.h"
#include "framework/process/port_file.h"
#include "framework/process/scratch_dir.h"
#include "tools/loadgen/worker_run.h"

namespace aftershock::loadgen {
namespace {

using std::chrono::milliseconds;

// A shared start `from_now` ahead, scaled for a slower (sanitizer) build: the head start covers the
// workers' own start-up.
std::int64_t UnixMsIn(milliseconds from_now) {
  return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch() +
                                                  config::Scaled(from_now))
      .count();
}

// The workers' generator-limited bar: the tool's default (10 ms), scaled for a slower build.
// Loose, like the scenario tests' bar (framework/scenario/internal/test_scenario_config.h): a busy
// host's single slow wake-up is the p99 of a worker's 100 arrivals, and these tests are about merging;
// the bar itself has its own test (TheDispatchLagBarDecidesGeneratorLimited).
std::string MaxDispatchLagFlag() { return "--max_dispatch_lag_ms=" + std::to_string(200 * config::TestTimeScale()); }

process::ChildProcess StartWorker(const std::string& target, const std::string& dir, int worker, int workers,
                                  double rate, double seconds, std::int64_t start_unix_ms, bool emit = false,
                                  const std::string& lag_flag = MaxDispatchLagFlag(), const std::string& extra_flag = "") {
  process::ChildOptions options;
  options.program = AFTERSHOCK_LOADGEN_PATH;
  options.args = {"run",
                  "--target=" + target,
                  "--rate=" + std::to_string(rate),
                  "--seconds=" + std::to_string(seconds),
                  "--worker=" + std::to_string(worker),
                  "--workers=" + std::to_string(workers),
                  "--start_unix_ms=" + std::to_string(start_unix_ms),
                  "--out=" + dir,
                  "--latencies=" + dir + "/raw-" + std::to_string(worker) + ".txt",
                  lag_flag};
  if (emit) options.args.push_back("--emit=stdout");
  if (!extra_flag.empty()) options.args.push_back(extra_flag);
  options.log_path = dir + "/worker-" + std::to_string(worker) + ".log";
  return process::ChildProcess::Start(options);
}

std::vector<std::int64_t> RawLatencies(const std::string& dir, int workers) {
  std::vector<std::int64_t> all;
  for (int k = 0; k < workers; ++k) {
    std::ifstream in(dir + "/raw-" + std::to_string(k) + ".txt");
    for (std::int64_t v; in >> v;) all.push_back(v);
  }
  std::sort(all.begin(), all.end());
  return all;
}

// Nearest rank, as LatencyHistogram::ValueAtPercentile counts it.
std::int64_t ExactPercentile(const std::vector<std::int64_t>& sorted, double p) {
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

const gates::GateResult* FindGate(const MergedRun& run, const std::string& name) {
  for (const gates::GateResult& g : run.gates) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

metrics::LatencyHistogram MergedLatency(const MergedRun& run) {
  metrics::LatencyHistogram h;
  for (const metrics::SecondBucket& s : run.timeline.seconds()) h.Merge(s.latency);
  return h;
}

// Two workers each taking every second arrival of a 400/s schedule, and one worker taking all of
// it: the merged counts per second are the same, exactly, and the merged percentiles are those of
// every call the two workers made, within the histogram's stated error (1/256).
TEST(LoadgenTest, TwoWorkersMergeIntoExactlyOneGeneratorsSchedule) {
  load::HttpTestServer server([](const load::HttpRequest&) { return load::TestReply{}; });
  const process::ScratchDir one = process::ScratchDir::Create("aftershock-loadgen-one");
  const process::ScratchDir two = process::ScratchDir::Create("aftershock-loadgen-two");
  {
    process::ChildProcess single = StartWorker(server.address(), one.path(), 0, 1, 400, 2, UnixMsIn(milliseconds(800)));
    ASSERT_EQ(single.Wait(std::chrono::seconds(30)), 0);
  }
  {
    const std::int64_t start = UnixMsIn(milliseconds(800));
    process::ChildProcess w0 = StartWorker(server.address(), two.path(), 0, 2, 400, 2, start);
    process::ChildProcess w1 = StartWorker(server.address(), two.path(), 1, 2, 400, 2, start);
    ASSERT_EQ(w0.Wait(std::chrono::seconds(30)), 0);
    ASSERT_EQ(w1.Wait(std::chrono::seconds(30)), 0);
  }
  const gates::GateBudgets budgets{.max_outage_seconds = 5, .max_unavailable_seconds = 10};
  const MergedRun a = MergeWorkerRun(one.path(), 1, budgets);
  const MergedRun b = MergeWorkerRun(two.path(), 2, budgets);
  ASSERT_TRUE(FindGate(a, "workers-complete")->passed) << a.report;
  ASSERT_TRUE(FindGate(b, "workers-complete")->passed) << b.report;
  ASSERT_GE(b.timeline.seconds().size(), 2u);
  for (int s = 0; s < 2; ++s) {
    EXPECT_EQ(a.timeline.seconds()[s].offered, 400u) << s;
    EXPECT_EQ(b.timeline.seconds()[s].offered, 400u) << s;
    EXPECT_EQ(b.timeline.seconds()[s].offered, a.timeline.seconds()[s].offered) << s;
    EXPECT_EQ(b.timeline.seconds()[s].ok + b.timeline.seconds()[s].failed + b.timeline.seconds()[s].shed,
              a.timeline.seconds()[s].ok + a.timeline.seconds()[s].failed + a.timeline.seconds()[s].shed)
        << s;
  }
  EXPECT_EQ(b.workers[0].scheduled, 400u);
  EXPECT_EQ(b.workers[1].scheduled, 400u);
  EXPECT_EQ(b.merged.scheduled, a.merged.scheduled);
  EXPECT_DOUBLE_EQ(b.merged.offered_rate, 400);

  const std::vector<std::int64_t> raw = RawLatencies(two.path(), 2);
  const metrics::LatencyHistogram merged = MergedLatency(b);
  ASSERT_EQ(merged.Count(), raw.size());
  for (const double p : {50.0, 90.0, 99.0, 99.9}) {
    const double exact = static_cast<double>(ExactPercentile(raw, p));
    const double reported = static_cast<double>(merged.ValueAtPercentile(p));
    EXPECT_LE(std::abs(reported - exact), exact / 256 + 1) << "p" << p << ": merged " << reported << " exact " << exact;
  }
  EXPECT_EQ(merged.Max(), raw.back());
  EXPECT_EQ(merged.Min(), raw.front());
}

// A worker killed mid-run leaves no timeline: the merged run is red (workers-complete names it),
// never a lighter run that looks green.
TEST(LoadgenTest, AWorkerThatDiesMakesTheMergedRunRed) {
  load::HttpTestServer server([](const load::HttpRequest&) { return load::TestReply{}; });
  const process::ScratchDir dir = process::ScratchDir::Create("aftershock-loadgen-dies");
  const std::int64_t start = UnixMsIn(milliseconds(500));
  process::ChildProcess w0 = StartWorker(server.address(), dir.path(), 0, 2, 200, 3, start);
  process::ChildProcess w1 = StartWorker(server.address(), dir.path(), 1, 2, 200, 3, start);
  std::this_thread::sleep_for(milliseconds(1500));  // inside the run
  w1.Signal(SIGKILL);
  ASSERT_EQ(w0.Wait(std::chrono::seconds(30)), 0);
  EXPECT_EQ(w1.Wait(std::chrono::seconds(10)), 128 + SIGKILL);
  const MergedRun run = MergeWorkerRun(dir.path(), 2, {});
  EXPECT_FALSE(run.passed);
  const gates::GateResult* complete = FindGate(run, "workers-complete");
  ASSERT_NE(complete, nullptr);
  EXPECT_FALSE(complete->passed);
  EXPECT_NE(complete->message.find("1 of 2 workers missing from the merge: worker 1: no "), std::string::npos)
      << complete->message;

  // The program says so too, with exit code 1.
  process::ChildOptions merge;
  merge.program = AFTERSHOCK_LOADGEN_PATH;
  merge.args = {"merge", "--dir=" + dir.path(), "--workers=2"};
  merge.log_path = dir.path() + "/merge.log";
  EXPECT_EQ(process::ChildProcess::Start(merge).Wait(std::chrono::seconds(30)), 1);
  std::ifstream log(merge.log_path);
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("FAIL workers-complete: 1 of 2 workers missing"), std::string::npos) << text;
}

// "200s with empty bodies. No 500s": the default body contract makes them failures in the workers, so
// the merged run is red; a target whose contract is an empty answer says so (--allow_empty_body=true).
TEST(LoadgenTest, TwoHundredsWithEmptyBodiesMakeTheMergedRunRedUnlessAllowed) {
  load::HttpTestServer server([](const load::HttpRequest&) { return load::TestReply{.body = ""}; });
  for (const bool allowed : {false, true}) {
    const process::ScratchDir dir = process::ScratchDir::Create("aftershock-loadgen-empty-body");
    const std::int64_t start = UnixMsIn(milliseconds(800));
    process::ChildProcess w = StartWorker(server.address(), dir.path(), 0, 1, 50, 1, start, false,
                                          MaxDispatchLagFlag(), allowed ? "--allow_empty_body=true" : "");
    ASSERT_EQ(w.Wait(std::chrono::seconds(30)), 0);
    const MergedRun run = MergeWorkerRun(dir.path(), 1, {.max_outage_seconds = 0.5, .max_unavailable_seconds = 0.5});
    const gates::GateResult* served = FindGate(run, "traffic-served");
    ASSERT_NE(served, nullptr);
    EXPECT_EQ(served->passed, allowed) << run.report;
    EXPECT_EQ(run.passed, allowed) << run.report;
  }
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

int RunMerge(const std::vector<std::string>& args, const std::string& log_path) {
  process::ChildOptions merge;
  merge.program = AFTERSHOCK_LOADGEN_PATH;
  merge.args = args;
  merge.log_path = log_path;
  return process::ChildProcess::Start(merge).Wait(std::chrono::seconds(30));
}

// As in an Indexed Job: each worker's folder is its own (a pod's, gone with it); only the logs
// reach the coordinator, and `merge --logs` merges from them what `merge --dir` merges from the
// files. A log cut short turns the merge red.
TEST(LoadgenTest, TheFilesOfWorkersWithOwnFoldersMergeFromTheirLogs) {
  load::HttpTestServer server([](const load::HttpRequest&) { return load::TestReply{}; });
  const process::ScratchDir pod0 = process::ScratchDir::Create("aftershock-loadgen-pod0");
  const process::ScratchDir pod1 = process::ScratchDir::Create("aftershock-loadgen-pod1");
  const std::int64_t start = UnixMsIn(milliseconds(800));
  {
    process::ChildProcess w0 = StartWorker(server.address(), pod0.path(), 0, 2, 200, 2, start, /*emit=*/true);
    process::ChildProcess w1 = StartWorker(server.address(), pod1.path(), 1, 2, 200, 2, start, /*emit=*/true);
    ASSERT_EQ(w0.Wait(std::chrono::seconds(30)), 0);
    ASSERT_EQ(w1.Wait(std::chrono::seconds(30)), 0);
  }
  const std::string log0 = pod0.path() + "/worker-0.log";
  const std::string log1 = pod1.path() + "/worker-1.log";
  const process::ScratchDir merged = process::ScratchDir::Create("aftershock-loadgen-merged");
  EXPECT_EQ(RunMerge({"merge", "--dir=" + merged.path(), "--workers=2", "--logs=" + log0 + "," + log1},
                     merged.path() + "/merge.log"),
            0)
      << ReadText(merged.path() + "/merge.log");
  const std::string text = ReadText(merged.path() + "/merge.log");
  EXPECT_NE(text.find("recovered 2 file(s) from " + log0), std::string::npos) << text;
  EXPECT_NE(text.find("merged 2 worker(s): offered 400,"), std::string::npos) << text;
  EXPECT_NE(text.find("PASS workers-complete"), std::string::npos) << text;
  const MergedRun run = MergeWorkerRun(merged.path(), 2, {.max_outage_seconds = 5, .max_unavailable_seconds = 10});
  EXPECT_EQ(run.merged.scheduled, 400u);

  // Worker 1's pod died while printing its timeline: its log ends inside the block.
  const std::string whole = ReadText(log1);
  const std::size_t end = whole.find("##aftershock-loadgen END worker-1.timeline");
  ASSERT_NE(end, std::string::npos) << whole;
  std::ofstream(log1, std::ios::trunc) << whole.substr(0, end);
  const process::ScratchDir cut = process::ScratchDir::Create("aftershock-loadgen-cut");
  EXPECT_EQ(RunMerge({"merge", "--dir=" + cut.path(), "--workers=2", "--logs=" + log0 + "," + log1},
                     cut.path() + "/merge.log"),
            1);
  const std::string red = ReadText(cut.path() + "/merge.log");
  EXPECT_NE(red.find("worker-1.timeline cut short (the log ended first): not recovered"), std::string::npos) << red;
  EXPECT_NE(red.find("FAIL workers-complete: 1 of 2 workers missing from the merge: worker 1"), std::string::npos) << red;
}

// A real in-memory aftershock-pseudonym (with `server_args`) and two --kind=pseudonym workers of a
// 100/s, 2 s schedule against it; the server keeps running for the verification.
struct PseudonymRun {
  process::ChildProcess server;
  std::string port;
};

PseudonymRun RunPseudonymWorkers(const std::string& dir, const std::vector<std::string>& server_args) {
  process::ChildOptions server_options;
  server_options.program = AFTERSHOCK_PSEUDONYM_PATH;
  server_options.args = {"--listen=127.0.0.1:0", "--port-file=" + dir + "/port", "--replica-name=a"};
  server_options.args.insert(server_options.args.end(), server_args.begin(), server_args.end());
  server_options.log_path = dir + "/server.log";
  PseudonymRun run{process::ChildProcess::Start(server_options), ""};
  const process::PortFileWait wait = process::WaitForPortFile(
      run.server, dir + "/port", std::chrono::steady_clock::now() + std::chrono::seconds(10));
  if (wait.port) run.port = std::to_string(*wait.port);
  EXPECT_FALSE(run.port.empty()) << "aftershock-pseudonym " << wait.failure << "\n" << ReadText(server_options.log_path);
  if (run.port.empty()) return run;
  const std::int64_t start = UnixMsIn(milliseconds(1500));
  std::vector<process::ChildProcess> workers;
  for (int k = 0; k < 2; ++k) {
    process::ChildOptions o;
    o.program = AFTERSHOCK_LOADGEN_PATH;
    o.args = {"run", "--kind=pseudonym", "--target=127.0.0.1:" + run.port, "--rate=100", "--seconds=2",
              "--worker=" + std::to_string(k), "--workers=2", "--start_unix_ms=" + std::to_string(start),
              "--out=" + dir, MaxDispatchLagFlag()};
    o.log_path = dir + "/worker-" + std::to_string(k) + ".log";
    workers.push_back(process::ChildProcess::Start(o));
  }
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(workers[k].Wait(std::chrono::seconds(60)), 0) << ReadText(dir + "/worker-" + std::to_string(k) + ".log");
  }
  return run;
}

// `aftershock-loadgen merge --dir=DIR --workers=2 --verify=true`: its exit code and output.
std::pair<int, std::string> MergeAndVerify(const std::string& dir) {
  process::ChildOptions o;
  o.program = AFTERSHOCK_LOADGEN_PATH;
  o.args = {"merge", "--dir=" + dir, "--workers=2", "--verify=true"};
  o.log_path = dir + "/merge.log";
  const int code = process::ChildProcess::Start(o).Wait(std::chrono::seconds(60));
  return {code, ReadText(o.log_path)};
}

// --kind=pseudonym: the reference service's gRPC Create from two workers, against a real in-memory
// aftershock-pseudonym; merged like any other run, and every promise of both workers merged into one
// ledger that `merge --verify=true` reads back from the service.
TEST(LoadgenTest, PseudonymWorkersCreateOverGrpcAndMerge) {
  const process::ScratchDir dir = process::ScratchDir::Create("aftershock-loadgen-pseudonym");
  PseudonymRun pseudonym = RunPseudonymWorkers(dir.path(), {});
  ASSERT_FALSE(pseudonym.port.empty());
  const MergedRun run = MergeWorkerRun(dir.path(), 2, {.max_outage_seconds = 5, .max_unavailable_seconds = 10});
  ASSERT_TRUE(FindGate(run, "workers-complete")->passed) << run.report;
  std::uint64_t offered = 0, ok = 0;
  for (const metrics::SecondBucket& s : run.timeline.seconds()) {
    offered += s.offered;
    ok += s.ok;
  }
  EXPECT_EQ(offered, 200u) << run.report;
  EXPECT_EQ(ok, 200u) << run.report;
  // Both workers' promises, each once, in arrival order; the header is the run's, not a worker's.
  ASSERT_TRUE(run.ledger.has_value());
  EXPECT_EQ(run.ledger->promises.size(), 200u);
  EXPECT_EQ(run.ledger->acknowledged, 200u);
  EXPECT_TRUE(std::is_sorted(run.ledger->promises.begin(), run.ledger->promises.end(),
                             [](const ledger::Promise& a, const ledger::Promise& b) { return a.unix_ms < b.unix_ms; }));
  std::vector<std::string> keys;
  for (const ledger::Promise& p : run.ledger->promises) keys.push_back(p.key);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(std::adjacent_find(keys.begin(), keys.end()), keys.end()) << "a promise merged twice";
  EXPECT_EQ(run.ledger->HeaderValue("target.kind"), "pseudonym");
  EXPECT_EQ(run.ledger->HeaderValue("workers"), "2");
  EXPECT_EQ(run.ledger->HeaderValue("worker"), "");

  const auto [code, out] = MergeAndVerify(dir.path());
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("merged ledger: 200 promise(s), 0 indeterminate, from 2 worker(s)"), std::string::npos) << out;
  EXPECT_NE(out.find("PASS p3-reverse-lookup: 0 lost of 200 checked"), std::string::npos) << out;
  pseudonym.server.Stop(std::chrono::seconds(5));
}

// A service that forgets half of what it acknowledged: the merged ledger's promise gate is red.
TEST(LoadgenTest, PromisesTheServiceLostMakeTheMergedRunRed) {
  const process::ScratchDir dir = process::ScratchDir::Create("aftershock-loadgen-pseudonym-lost");
  PseudonymRun pseudonym = RunPseudonymWorkers(dir.path(), {"--enable-test-control", "--forget-fraction=0.5"});
  ASSERT_FALSE(pseudonym.port.empty());
  const auto [code, out] = MergeAndVerify(dir.path());
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(out.find("PASS workers-complete"), std::string::npos) << out;
  EXPECT_NE(out.find("FAIL p3-reverse-lookup"), std::string::npos) << out;
  pseudonym.server.Stop(std::chrono::seconds(5));
}

// A worker's ledger without its end line (cut short) or missing: workers-complete is red naming it,
// and --verify=true has no merged ledger to pass on.
TEST(LoadgenTest, AWorkersLedgerCutShortOrMissingMakesTheMergeRed) {
  const process::ScratchDir dir = process::ScratchDir::Create("aftershock-loadgen-pseudonym-cut");
  PseudonymRun pseudonym = RunPseudonymWorkers(dir.path(), {});
  ASSERT_FALSE(pseudonym.port.empty());
  pseudonym.server.Stop(std::chrono::seconds(5));
  const std::string ledger_1 = LedgerPath(dir.path(), 1).string();
  std::string text = ReadText(ledger_1);
  ASSERT_NE(text.find("# end "), std::string::npos) << text;
  text.erase(text.find("# end "));
  std::ofstream(ledger_1, std::ios::trunc) << text;
  const gates::GateBudgets budgets{.max_outage_seconds = 5, .max_unavailable_seconds = 10};
  MergedRun run = MergeWorkerRun(dir.path(), 2, budgets);
  EXPECT_FALSE(FindGate(run, "workers-complete")->passed);
  EXPECT_NE(FindGate(run, "workers-complete")->message.find("worker 1: " + ledger_1 + " has no end line"),
            std::string::npos)
      << run.report;
  const auto [code, out] = MergeAndVerify(dir.path());
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(out.find("FAIL promises: --verify=true, but no merged ledger"), std::string::npos) << out;

  std::filesystem::remove(ledger_1);
  run = MergeWorkerRun(dir.path(), 2, budgets);
  EXPECT_FALSE(FindGate(run, "workers-complete")->passed);
  EXPECT_NE(FindGate(run, "workers-complete")->message.find("worker 1: " + ledger_1 + ":0: cannot open for reading"),
            std::string::npos) << run.report;
}

// --max_dispatch_lag_ms is the worker's generator-limited bar: a bar no real dispatch meets (1 ns)
// makes the worker, and so the merged run, generator-limited; the same run under the scaled default
// is not.
TEST(LoadgenTest, TheDispatchLagBarDecidesGeneratorLimited) {
  load::HttpTestServer server([](const load::HttpRequest&) { return load::TestReply{}; });
  const process::ScratchDir strict = process::ScratchDir::Create("aftershock-loadgen-lag-strict");
  const process::ScratchDir usual = process::ScratchDir::Create("aftershock-loadgen-lag-usual");
  const std::int64_t start = UnixMsIn(milliseconds(800));
  process::ChildProcess a = StartWorker(server.address(), strict.path(), 0, 1, 50, 1, start, false,
                                        "--max_dispatch_lag_ms=0.000001");
  // The green side's bar is generous: one slow wake-up of a busy host is 1 of 50 samples here, its
  // p99; this test is about the bar deciding, not about the host.
  process::ChildProcess b = StartWorker(server.address(), usual.path(), 0, 1, 50, 1, start, false,
                                        "--max_dispatch_lag_ms=1000");
  ASSERT_EQ(a.Wait(std::chrono::seconds(30)), 0);
  ASSERT_EQ(b.Wait(std::chrono::seconds(30)), 0);
  const MergedRun red = MergeWorkerRun(strict.path(), 1, {.max_outage_seconds = 5, .max_unavailable_seconds = 10});
  const MergedRun green = MergeWorkerRun(usual.path(), 1, {.max_outage_seconds = 5, .max_unavailable_seconds = 10});
  EXPECT_TRUE(red.merged.generator_limited) << red.report;
  EXPECT_NE(red.merged.reason.find("exceeds 0.000001 ms"), std::string::npos) << red.merged.reason;
  EXPECT_FALSE(green.merged.generator_limited) << green.report;
}

// The merged run judges the same SLO, latency and retry gates a single process does, on the merged
// timeline (its histograms are exact).
TEST(LoadgenTest, TheMergedRunJudgesTheSloLatencyAndRetryGates) {
  const process::ScratchDir dir = process::ScratchDir::Create("aftershock-loadgen-slo");
  for (int k = 0; k < 2; ++k) {
    metrics::LoadTimeline t(RunClock(Clock::time_point{}, 1'700'000'000'000));
    for (int s = 0; s < 3; ++s) {
      metrics::SecondBucket& b = t.At(s);
      b.offered = 100;
      b.ok = 95;
      b.failed = 5;
      b.retries = k == 0 ? 30 : 0;  // one worker's calls were retried: 90 of 600 offered in all
      b.first_attempt_failed = k == 0 ? 30 : 5;
      b.latency.Record(300'000'000, 100);  // 300 ms each
      b.ok_latency.Record(300'000'000, 95);
      t.RecordOkCompletion(s * 1'000'000'000LL + 10);
      t.RecordOkCompletion(s * 1'000'000'000LL + 900'000'000);
    }
    t.RecordOffered(0);
    t.RecordOffered(2'990'000'000LL);
    metrics::GeneratorHealth h;
    h.scheduled = h.dispatched = 300;
    h.offered_rate = h.achieved_rate = 100;
    WriteWorkerFiles(dir.path(), {.worker = k, .workers = 2, .start_unix_ms = 0}, t, h);
  }
  gates::GateBudgets budgets{.max_outage_seconds = 5, .max_unavailable_seconds = 10};
  budgets.max_latency_p99_seconds = 0.5;
  config::SloSpec slo;
  slo.success_ratio = 0.99;  // 95 % were ok
  slo.latency = {{.label = "p99", .percentile = 99, .max_seconds = 0.1}};  // 300 ms were measured
  const MergedRun run = MergeWorkerRun(dir.path(), 2, budgets, slo);
  ASSERT_NE(FindGate(run, "slo-success-ratio"), nullptr) << run.report;
  EXPECT_FALSE(FindGate(run, "slo-success-ratio")->passed);
  EXPECT_NE(FindGate(run, "slo-success-ratio")->message.find("success 95 % < 99 %"), std::string::npos) << run.report;
  ASSERT_NE(FindGate(run, "slo-latency-p99"), nullptr);
  EXPECT_FALSE(FindGate(run, "slo-latency-p99")->passed);
  EXPECT_TRUE(FindGate(run, "latency-p99")->passed) << run.report;  // 300 ms under the 500 ms budget
  EXPECT_FALSE(FindGate(run, "retry-amplification")->passed);      // 0.15 retries per call > 0.05
  EXPECT_NE(FindGate(run, "retry-amplification")->message.find("0.15 retries per offered call"), std::string::npos)
      << run.report;
  EXPECT_FALSE(run.passed);
  // The merged gap: each second's successes at .00000001 and .9 in both workers, so 0.1 s across each
  // second boundary (exact: the merged first and last completions are min and max), and the 0.89 s
  // inside each second, which across workers is an upper bound and says so.
  const gates::GateResult* gap = FindGate(run, "p1-longest-gap");
  ASSERT_NE(gap, nullptr) << run.report;
  EXPECT_TRUE(gap->passed) << gap->message;
  EXPECT_NE(gap->message.find("0.9 s without a success"), std::string::npos) << gap->message;
  EXPECT_NE(gap->message.find("an upper bound"), std::string::npos) << gap->message;
  // Objectives it meets: green.
  slo.success_ratio = 0.9;
  slo.latency = {{.label = "p99", .percentile = 99, .max_seconds = 0.5}};
  budgets.max_retries_per_call = 0.2;
  const MergedRun green = MergeWorkerRun(dir.path(), 2, budgets, slo);
  EXPECT_TRUE(FindGate(green, "slo-success-ratio")->passed) << green.report;
  EXPECT_TRUE(FindGate(green, "slo-latency-p99")->passed) << green.report;
  EXPECT_TRUE(FindGate(green, "retry-amplification")->passed) << green.report;
}

TEST(LoadgenTest, BadFlagsExitTwoNamingTheFlag) {
  const process::ScratchDir dir = process::ScratchDir::Create("aftershock-loadgen-flags");
  auto run = [&](std::vector<std::string> args) {
    process::ChildOptions o;
    o.program = AFTERSHOCK_LOADGEN_PATH;
    o.args = std::move(args);
    o.log_path = dir.path() + "/out.log";
    std::remove(o.log_path.c_str());
    const int code = process::ChildProcess::Start(o).Wait(std::chrono::seconds(30));
    std::ifstream in(o.log_path);
    return std::make_pair(code, std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  };
  auto [code, text] = run({"run", "--target=127.0.0.1:1", "--rate=10", "--seconds=1", "--worker=2", "--workers=2",
                           "--start_unix_ms=" + std::to_string(UnixMsIn(milliseconds(1000))), "--out=" + dir.path()});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("--worker=2 is not below --workers=2"), std::string::npos) << text;
  std::tie(code, text) = run({"run", "--target=127.0.0.1:1", "--rate=10", "--seconds=1", "--worker=0", "--workers=1",
                              "--start_unix_ms=1000", "--out=" + dir.path()});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("ms in the past"), std::string::npos) << text;
  std::tie(code, text) = run({"merge", "--dir=" + dir.path(), "--workers=0"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("--workers: expected an integer >= 1, got '0'"), std::string::npos) << text;
  std::tie(code, text) = run({"merge", "--dir=" + dir.path(), "--worker=1"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("unknown flag --worker"), std::string::npos) << text;
  std::tie(code, text) = run({"merge", "--dir=" + dir.path(), "--workers=1", "--slo_latency=99:800"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("--slo_latency: '99:800' is not pN:MS"), std::string::npos) << text;
  std::tie(code, text) = run({"merge", "--dir=" + dir.path(), "--workers=1", "--slo_success_ratio=1.5"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("--slo_success_ratio: expected a ratio in (0, 1]"), std::string::npos) << text;
  std::tie(code, text) = run({"merge", "--dir=" + dir.path(), "--workers=1", "--verify=yes"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("--verify: expected true or false, got 'yes'"), std::string::npos) << text;
  std::tie(code, text) = run({"merge", "--dir=" + dir.path(), "--workers=1", "--target_address=127.0.0.1:1"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("--target_address is for --verify=true"), std::string::npos) << text;
  const std::string soon = "--start_unix_ms=" + std::to_string(UnixMsIn(milliseconds(1000)));
  std::tie(code, text) = run({"run", "--target=127.0.0.1:1", "--rate=10", "--seconds=1", "--worker=0", "--workers=1", soon,
                              "--out=" + dir.path(), "--emit=file"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("--emit: expected stdout, got 'file'"), std::string::npos) << text;
  std::tie(code, text) = run({"run", "--target=127.0.0.1:1", "--rate=10", "--seconds=1", "--worker=0", "--workers=1", soon,
                              "--out=" + dir.path(), "--allow_non_loopback=yes"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("--allow_non_loopback: expected true or false, got 'yes'"), std::string::npos) << text;
  // Off loopback only when explicitly allowed (nothing is sent: the target is refused up front).
  std::tie(code, text) = run({"run", "--target=192.0.2.1:80", "--rate=10", "--seconds=1", "--worker=0", "--workers=1",
                              soon, "--out=" + dir.path()});
  EXPECT_EQ(code, 1);
  EXPECT_NE(text.find("loopback"), std::string::npos) << text;
  std::tie(code, text) = run({"run", "--kind=grpc", "--target=127.0.0.1:1", "--rate=10", "--seconds=1", "--worker=0",
                              "--workers=1", soon, "--out=" + dir.path()});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("--kind: expected http or pseudonym, got 'grpc'"), std::string::npos) << text;
  std::tie(code, text) = run({"run", "--target=127.0.0.1:1", "--rate=10", "--seconds=1", "--worker=0", "--workers=1",
                              soon, "--out=" + dir.path(), "--max_dispatch_lag_ms=0"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("--max_dispatch_lag_ms: expected a number > 0, got '0'"), std::string::npos) << text;
  std::tie(code, text) = run({"merge", "--dir=" + dir.path(), "--workers=1", "--logs=" + dir.path() + "/no-such.log"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("--logs: cannot read '" + dir.path() + "/no-such.log'"), std::string::npos) << text;
}

}  // namespace
}  // namespace aftershock::loadgen
