// The files one aftershock-loadgen worker leaves and how a coordinator merges them (docs/loadgen.md).
//
// Worker k of N writes `<dir>/worker-<k>.timeline` (metrics/timeline_file.h: every per-second count
// and histogram bucket) and `<dir>/worker-<k>.health` (its generator self-health, key=value lines),
// the health first and the timeline last, each through a temporary file renamed into place, so a
// worker that dies leaves no timeline, never a partial one that looks complete. A worker whose
// calls make promises (--kind=pseudonym) also streams every promise into `<dir>/worker-<k>.ledger`
// (ledger_stream.h: exhaustive, an end line when the run closed it) and names it in its health
// file (`ledger=worker-<k>.ledger`). MergeWorkerRun reads all N, refuses a missing, truncated or
// foreign file (a named ledger that is missing or has no end line too), merges the timelines bucket
// by bucket (exact percentiles, never averaged) and the ledgers record by record, and judges the
// availability and generator gates once, on the merged run, with the generator health per worker
// and merged. The merged ledger is what the promise gates are judged on (aftershock-verify, or
// `aftershock-loadgen merge --verify=true`).
//
//   WriteWorkerFiles(dir, {.worker = 0, .workers = 2}, result.timeline, result.health);
//   MergedRun merged = MergeWorkerRun(dir, 2, budgets);
//   if (!merged.passed) std::cerr << merged.report;
#ifndef AFTERSHOCK_TOOLS_LOADGEN_WORKER_RUN_H_
#define AFTERSHOCK_TOOLS_LOADGEN_WORKER_RUN_H_

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "framework/config/slo_spec.h"
#include "framework/gates/availability.h"
#include "framework/gates/gate_result.h"
#include "framework/ledger/ledger_file.h"
#include "framework/metrics/generator_health.h"
#include "framework/metrics/load_timeline.h"
#include "framework/metrics/timeline_file.h"

namespace aftershock::loadgen {

std::filesystem::path TimelinePath(const std::filesystem::path& dir, int worker);
std::filesystem::path HealthPath(const std::filesystem::path& dir, int worker);
std::filesystem::path LedgerPath(const std::filesystem::path& dir, int worker);

// Writes `path` through `<path>.tmp` and a rename: a reader sees the whole file or none. Throws
// std::runtime_error naming the file when it cannot be written.
void WriteAtomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

// Throws std::runtime_error naming the file when it cannot be written. `with_ledger`: the worker
// streamed its promises into LedgerPath(dir, worker), closed before this call; the health file says so.
void WriteWorkerFiles(const std::filesystem::path& dir, const metrics::TimelineFileHeader& header,
                      const metrics::LoadTimeline& timeline, const metrics::GeneratorHealth& health,
                      bool with_ledger = false);

// The health file's text and back; ParseHealth throws std::runtime_error "<name>:<line>: ...".
// `ledger` is the ledger file's name, "" for a worker without one.
std::string FormatHealth(const metrics::GeneratorHealth& health, const std::string& ledger = "");
metrics::GeneratorHealth ParseHealth(const std::string& text, const std::string& name);

// The header names a worker's ledger carries besides the target's identity (merged: `workers` only).
inline constexpr char kLedgerWorker[] = "worker";
inline constexpr char kLedgerWorkers[] = "workers";
inline constexpr char kLedgerStartUnixMs[] = "start_unix_ms";

struct MergedRun {
  metrics::LoadTimeline timeline;                // the workers' timelines, merged
  std::vector<metrics::GeneratorHealth> workers;  // per worker (empty entries for missing ones)
  metrics::GeneratorHealth merged;               // summed counts, lag from the merged histograms
  std::vector<std::string> problems;             // missing / truncated / foreign worker files
  std::optional<ledger::LedgerFile> ledger;      // the workers' ledgers merged (when they kept them and
                                                 // every worker's files merged: never a partial one)
  std::vector<gates::GateResult> gates;          // workers-complete first, then the run's gates
  bool passed = false;
  std::string report;                            // the gate report (FormatGateReport)
};

// Reads the N workers' files in `dir`. Never throws for a bad worker file: it is a problem, and
// the gate workers-complete is red.
// `slo`: the run's objectives (the same SLO gates a scenario's `slo:` makes, judged on the merged
// timeline, whose histograms are exact).
MergedRun MergeWorkerRun(const std::filesystem::path& dir, int workers, const gates::GateBudgets& budgets,
                         const std::optional<config::SloSpec>& slo = std::nullopt);

}  // namespace aftershock::loadgen

#endif  // AFTERSHOCK_TOOLS_LOADGEN_WORKER_RUN_H_
