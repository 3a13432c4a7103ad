#include "bench/runner_soak.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/internal/bench_support.h"
#include "fixtures/targets/pseudonym/test_control_client.h"
#include "framework/common/run_clock.h"
#include "framework/ledger/ledger_stream.h"
#include "framework/ledger/promise_ledger.h"
#include "framework/load/open_model_runner.h"
#include "framework/load/rate_profile.h"
#include "framework/metrics/load_timeline.h"

namespace aftershock::bench {
namespace {

double RssMiB() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  }
  return 0;
}

}  // namespace

// The ledger in memory is bounded by its capacity, 100,000 here: reached in the first 20 s at 5000/s.
void RunSoak(const SoakOptions& soak, fixtures::PseudonymTarget& target) {
  TempDir dir;
  // Bounded as a scenario bounds it (ledger_capacity is also the near-fault and recent-ring bound).
  ledger::PromiseLedger ledger(ledger::LedgerOptions{.capacity = 100000, .fault_capacity = 100000});
  ledger.AttachStream(ledger::LedgerStream::Open((dir.path() / "ledger.tsv").string(), {{"bench", "soak"}}));
  const RunClock clock = RunClock::StartNow();
  auto workload = target.MakeWorkload(ledger, clock);
  load::RunnerOptions options;
  options.profile = load::RateProfile::Constant(soak.rate, soak.seconds);
  options.call_deadline = std::chrono::seconds(2);
  options.max_in_flight = 100000;
  options.dispatch_coalesce = std::chrono::microseconds(soak.coalesce_us);
  options.compact_final_seconds = soak.compact;
  options.release_memory_after_pileup = soak.release_memory_after_pileup;
  load::OpenModelRunner runner(*workload, std::move(options), clock);
  std::cout << "\n## Soak: " << Fixed(soak.rate, 0) << " calls/s for " << Fixed(soak.seconds, 0)
            << " s (timeline" << (soak.compact ? "" : " NOT compacted")
            << ", ledger of 100000 in memory + the streamed file; peak in flight: the highest of the 100 ms samples"
               " since the row before; heap: bytes the allocator has handed out; lag and latency max: of the calls intended"
               " in this second and the one before, answered so far: a burst whose lag is small was the server's or"
               " the host's, one whose lag is as long as the burst was the generator's)\n\n"
               "| t s | RSS MiB | heap MiB | in flight | peak in flight | lag max ms | latency max ms |\n"
               "|---:|---:|---:|---:|---:|---:|---:|\n"
            << std::flush;
  std::atomic<bool> done{false};
  std::vector<std::pair<double, double>> samples;  // (t, MiB)
  std::int64_t largest_burst = 0;                    // the most calls in flight after the warm-up
  std::optional<pseudonym::TestControlClient> control;
  if (soak.stall_at_seconds > 0) control.emplace(soak.server_address);
  bool stalled = false;
  double rss_before_stall = 0;
  std::int64_t stall_peak = 0;
  std::thread sampler([&] {
    const auto start = Clock::now();
    // A burst of calls in flight between two rows (a stall of the machine or the server) is what
    // leaves RSS higher afterwards: the peak column shows it.
    std::int64_t peak_in_flight = 0;
    for (int i = 0; i < 100000 && !done.load(); ++i) {
      const double t = std::chrono::duration<double>(Clock::now() - start).count();
      const double mib = RssMiB();
      samples.emplace_back(t, mib);
      const std::int64_t in_flight = runner.Progress().in_flight;
      peak_in_flight = std::max(peak_in_flight, in_flight);
      if (control && !stalled && t >= soak.stall_at_seconds) {
        pseudonym::v1::Defects hold;
        hold.set_stall_until_ms_from_now(1000);
        control->SetDefects(hold);
        stalled = true;
        rss_before_stall = mib;
      }
      if (i % std::max(1, soak.row_every_seconds) == 0) {
        const metrics::SecondBucket recent = runner.Recent(2);
        std::cout << "| " << Fixed(t, 0) << " | " << Fixed(mib, 1) << " | "
                  << Fixed(static_cast<double>(HeapBytesInUse()) / (1024.0 * 1024.0), 1) << " | " << in_flight << " | "
                  << peak_in_flight << " | " << Fixed(static_cast<double>(recent.dispatch_lag.Max()) / 1e6, 1) << " | "
                  << Fixed(static_cast<double>(recent.latency.Max()) / 1e6, 1) << " |\n"
                  << std::flush;
        peak_in_flight = 0;
      }
      for (int k = 0; k < 10 && !done.load(); ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        peak_in_flight = std::max(peak_in_flight, runner.Progress().in_flight);
      }
      if (t >= soak.warmup_seconds) largest_burst = std::max(largest_burst, peak_in_flight);
      if (stalled) stall_peak = std::max(stall_peak, peak_in_flight);
    }
  });
  const load::RunResult result = runner.Run();
  done.store(true);
  sampler.join();
  if (control) control->SetDefects({});
  ledger.CloseStream();
  double after_warmup = 0, max_after = 0, end = samples.empty() ? 0 : samples.back().second;
  for (const auto& [t, mib] : samples) {
    if (t < soak.warmup_seconds) continue;
    if (after_warmup == 0) after_warmup = mib;
    max_after = std::max(max_after, mib);
  }
  const double growth = after_warmup > 0 ? (max_after - after_warmup) / after_warmup * 100 : 0;
  std::cout << "\nsoak: " << result.ok << " ok, " << result.failed << " failed, " << result.shed << " shed"
            << (result.health.generator_limited ? "; generator-limited: " + result.health.reason : "") << "\n"
            << "soak: RSS at " << Fixed(soak.warmup_seconds, 0) << " s " << Fixed(after_warmup, 1)
            << " MiB, at the end " << Fixed(end, 1) << " MiB, highest after the warm-up " << Fixed(max_after, 1)
            << " MiB: +" << Fixed(growth, 1) << " % (flat within 10 %: " << (growth <= 10 ? "yes" : "NO") << ")\n"
            << "soak: the most calls in flight after the warm-up: " << largest_burst
            << " (each holds ~13.6 KB; glibc keeps what a burst took unless the runner hands it back, the line below)\n"
            << "soak: the allocator was asked to return a drained pile-up's memory " << result.memory_releases
            << " times (RunnerOptions::release_memory_after_pileup = " << soak.release_memory_after_pileup << ")\n";
  if (stalled) {
    std::cout << "soak: the server held every call of one second from " << Fixed(soak.stall_at_seconds, 0)
              << " s: RSS before " << Fixed(rss_before_stall, 1) << " MiB, highest " << Fixed(max_after, 1) << " MiB ("
              << stall_peak << " in flight at most), at the end " << Fixed(end, 1) << " MiB (+"
              << Fixed(rss_before_stall > 0 ? (end - rss_before_stall) / rss_before_stall * 100 : 0, 1)
              << " % over before)\n";
  }
  std::cout << "soak: ledger file " << ledger.acknowledged() << " promises acknowledged, all in the file\n";
  // What the run's timeline holds: every second stays (the run's record), so this is the part of the
  // heap that grows with the run's length by design.
  std::size_t latency_bytes = 0, ok_bytes = 0, lag_bytes = 0;
  std::size_t code_entries = 0;
  for (const metrics::SecondBucket& s : result.timeline.seconds()) {
    latency_bytes += s.latency.MemoryBytes();
    ok_bytes += s.ok_latency.MemoryBytes();
    lag_bytes += s.dispatch_lag.MemoryBytes();
    code_entries += s.failed_by_code.size();
  }
  const std::size_t histogram_bytes = latency_bytes + ok_bytes + lag_bytes;
  const std::size_t n_seconds = result.timeline.seconds().size();
  const std::size_t timeline_bytes = n_seconds * sizeof(metrics::SecondBucket) + histogram_bytes;
  const auto per_second = [n_seconds](std::size_t bytes) { return n_seconds > 0 ? bytes / n_seconds : 0; };
  std::cout << "soak: timeline " << n_seconds << " seconds, " << Fixed(static_cast<double>(timeline_bytes) / 1024.0, 0)
            << " KiB (" << per_second(timeline_bytes) << " bytes a second: " << sizeof(metrics::SecondBucket)
            << " of buckets, " << per_second(histogram_bytes) << " of compacted histograms (latency "
            << per_second(latency_bytes) << ", ok latency " << per_second(ok_bytes) << ", dispatch lag "
            << per_second(lag_bytes) << "); " << code_entries << " failure-code entries)\n";
}

InFlightMemoryFit ProbeGrpcInFlightMemory(fixtures::PseudonymTarget& target, const std::string& server_address) {
  pseudonym::TestControlClient control(server_address);
  pseudonym::v1::Defects stall;
  stall.set_stall_rate(1);
  stall.set_stall_ms(1000);
  control.SetDefects(stall);
  ledger::PromiseLedger ledger(ledger::LedgerOptions{.capacity = 10000});
  const RunClock clock = RunClock::StartNow();
  auto workload = target.MakeWorkload(ledger, clock);
  load::RunnerOptions options;
  options.profile = load::RateProfile::Constant(2000, 2.5);
  options.call_deadline = std::chrono::seconds(3);
  options.max_in_flight = 5000;
  load::OpenModelRunner runner(*workload, std::move(options), clock);
  InFlightMemoryFit fit;
  try {
    fit = SampleHeapPerCall([&] { return runner.Progress().in_flight; }, [&] { runner.Run(); });
  } catch (...) {
    control.SetDefects({});
    throw;
  }
  control.SetDefects({});
  std::cout << "memory: " << Fixed(fit.bytes_per_call, 0) << " heap bytes per gRPC call in flight (least squares over "
            << fit.samples << " samples up to " << fit.peak_in_flight
            << " in flight, glibc mallinfo2; the server stalled every call 1 s)\n";
  return fit;
}

}  // namespace aftershock::bench
