// The ledger's cost per promise: heap bytes held (so the exhaustive default bound can be sized
// against memory) and recording time, in memory only and with the streamed ledger file.
//
//   build/bench/ledger_benchmark [--promises=720000] [--threads=4] [--bounded_promises=3000000]
//
// Then a bounded ledger as a soak holds it (capacity and fault_capacity 100,000, 5,000 promises a
// second: a recent ring of 25,000), its heap at points up to --bounded_promises: once the reservoir
// and the ring are full it should stay flat (docs/benchmarks.md, the soak).
//
// Keys and values have the reference target's shapes ("orig-<12 hex>-<n>" -> "ps-<16 chars>").
// Figures are printed, not asserted: the machine is shared and noisy.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench/internal/bench_support.h"
#include "framework/ledger/ledger_stream.h"
#include "framework/ledger/promise_ledger.h"

namespace {

using aftershock::ledger::LedgerOptions;
using aftershock::ledger::LedgerStream;
using aftershock::ledger::Promise;
using aftershock::ledger::PromiseLedger;

// bench_support's: the sanitizers' allocators too, where glibc's mallinfo2 reads nothing.
std::size_t HeapInUse() { return aftershock::bench::HeapBytesInUse(); }

// Promise `i` with the reference target's shapes, acknowledged `ms` milliseconds into the run.
Promise ReferencePromise(std::size_t i, std::int64_t ms) {
  return Promise{"orig-3f9c0a1b2d4e-" + std::to_string(i), "ps-" + std::to_string(1000000000000000ULL + i),
                 1733040000000 + ms};
}

struct Figures {
  double bytes_per_promise = 0;
  double ns_per_record = 0;
  std::uint64_t file_bytes = 0;
};

Figures Measure(std::size_t promises, int threads, const std::string& stream_path) {
  const std::size_t before = HeapInUse();
  Figures f;
  {
    PromiseLedger ledger(LedgerOptions{});
    if (!stream_path.empty()) ledger.AttachStream(LedgerStream::Open(stream_path, {{"target.kind", "bench"}}));
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (std::size_t i = static_cast<std::size_t>(t); i < promises; i += static_cast<std::size_t>(threads)) {
          ledger.RecordAcknowledged(ReferencePromise(i, static_cast<std::int64_t>(i) * 5));  // 200 a second
        }
      });
    }
    for (std::thread& t : pool) t.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    f.ns_per_record = seconds * 1e9 / static_cast<double>(promises);
    const std::size_t after = HeapInUse();
    f.bytes_per_promise = static_cast<double>(after - before) / static_cast<double>(promises);
    ledger.CloseStream();
  }
  if (!stream_path.empty()) {
    f.file_bytes = std::filesystem::file_size(stream_path);
    std::filesystem::remove(stream_path);
  }
  return f;
}

// The bounded ledger's heap (MiB above the empty ledger) after each of `points` promises.
std::vector<std::pair<std::size_t, double>> BoundedHeap(const std::vector<std::size_t>& points) {
  const std::size_t before = HeapInUse();
  std::vector<std::pair<std::size_t, double>> out;
  PromiseLedger ledger(LedgerOptions{.capacity = 100000, .fault_capacity = 100000});
  std::size_t i = 0;
  for (const std::size_t point : points) {
    for (; i < point; ++i) {
      ledger.RecordAcknowledged(ReferencePromise(i, static_cast<std::int64_t>(i / 5)));  // 5000 a second
    }
    out.emplace_back(point, static_cast<double>(HeapInUse() - before) / (1024.0 * 1024.0));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t promises = 720000;
  int threads = 4;
  std::size_t bounded_promises = 3000000;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg.rfind("--promises=", 0) == 0) {
        promises = static_cast<std::size_t>(aftershock::bench::ParsePositiveInt("promises", arg.substr(11)));
      } else if (arg.rfind("--threads=", 0) == 0) {
        threads = aftershock::bench::ParsePositiveInt("threads", arg.substr(10));
      } else if (arg.rfind("--bounded_promises=", 0) == 0) {
        bounded_promises = static_cast<std::size_t>(aftershock::bench::ParsePositiveInt("bounded_promises", arg.substr(19)));
      } else {
        throw aftershock::bench::FlagError("unknown flag '" + arg +
                                           "' (known: --promises=N, --threads=N, --bounded_promises=N)");
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ledger_benchmark: %s\n", e.what());
    return 2;
  }
  const std::string path = (std::filesystem::temp_directory_path() / "aftershock-ledger-benchmark.tsv").string();
  const Figures memory = Measure(promises, threads, "");
  const Figures streamed = Measure(promises, threads, path);
  std::printf("## PromiseLedger, %zu promises, %d recording threads, default options (exhaustive)\n", promises, threads);
  std::printf("| ledger | heap bytes / promise | ns / RecordAcknowledged | file bytes / promise |\n|---|---|---|---|\n");
  std::printf("| in memory | %.0f | %.0f | - |\n", memory.bytes_per_promise, memory.ns_per_record);
  std::printf("| in memory + streamed file | %.0f | %.0f | %.1f |\n", streamed.bytes_per_promise, streamed.ns_per_record,
              static_cast<double>(streamed.file_bytes) / static_cast<double>(promises));
  std::printf("heap for %zu promises: %.0f MiB\n", promises,
              memory.bytes_per_promise * static_cast<double>(promises) / (1024.0 * 1024.0));
  std::vector<std::size_t> points;
  for (const std::size_t p : {125000, 250000, 500000, 1000000, 2000000, 3000000, 5000000}) {
    if (p < bounded_promises) points.push_back(p);
  }
  points.push_back(bounded_promises);
  std::printf("\n## Bounded PromiseLedger (capacity 100000, fault_capacity 100000, 5000 promises a second: ring 25000)\n");
  std::printf("| promises | heap MiB |\n|---:|---:|\n");
  for (const auto& [n, mib] : BoundedHeap(points)) std::printf("| %zu | %.2f |\n", n, mib);
  return 0;
}
