#include "tools/loadgen/worker_run.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "framework/gates/availability_gates.h"
#include "framework/gates/gate.h"
#include "framework/gates/guard_gates.h"
#include "framework/gates/latency_retry_gates.h"
#include "framework/gates/slo_gates.h"

namespace aftershock::loadgen {
namespace {

std::string Number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string ReadWhole(const std::filesystem::path& path, bool& found) {
  std::ifstream in(path);
  found = static_cast<bool>(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

double Ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

// The health file's `ledger=` value ("" when the worker kept none).
std::string LedgerNamed(const std::string& health_text) {
  std::istringstream in(health_text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("ledger=", 0) == 0) return line.substr(7);
  }
  return "";
}

// Worker k's ledger, checked against its run; a problem (never a throw) when it is not whole.
std::optional<ledger::LedgerFile> ReadWorkerLedger(const std::filesystem::path& dir, int k, int workers,
                                                   std::int64_t start_unix_ms, const std::string& name,
                                                   std::vector<std::string>& problems) {
  const std::string who = "worker " + std::to_string(k) + ": ";
  if (name != LedgerPath(dir, k).filename().string()) {
    problems.push_back(who + "its health file names the ledger '" + name + "', not " +
                       LedgerPath(dir, k).filename().string());
    return std::nullopt;
  }
  const std::string path = LedgerPath(dir, k).string();
  ledger::LedgerFile file;
  try {
    file = ledger::ReadLedgerFile(path);
  } catch (const ledger::LedgerFileError& e) {
    problems.push_back(who + e.what());
    return std::nullopt;
  }
  if (!file.complete) {
    problems.push_back(who + path + " has no end line (cut short: the worker's promises are not all there)");
    return std::nullopt;
  }
  if (file.HeaderValue(kLedgerWorker) != std::to_string(k) || file.HeaderValue(kLedgerWorkers) != std::to_string(workers) ||
      file.HeaderValue(kLedgerStartUnixMs) != std::to_string(start_unix_ms)) {
    problems.push_back(who + path + " is worker " + file.HeaderValue(kLedgerWorker) + " of " +
                       file.HeaderValue(kLedgerWorkers) + " from unix ms " + file.HeaderValue(kLedgerStartUnixMs) +
                       ", not this run's worker " + std::to_string(k) + " of " + std::to_string(workers));
    return std::nullopt;
  }
  return file;
}

}  // namespace

void WriteAtomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
    write(out);
    out.flush();
    if (!out) throw std::runtime_error("writing " + tmp.string() + " failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
}

std::filesystem::path TimelinePath(const std::filesystem::path& dir, int worker) {
  return dir / ("worker-" + std::to_string(worker) + ".timeline");
}

std::filesystem::path HealthPath(const std::filesystem::path& dir, int worker) {
  return dir / ("worker-" + std::to_string(worker) + ".health");
}

std::filesystem::path LedgerPath(const std::filesystem::path& dir, int worker) {
  return dir / ("worker-" + std::to_string(worker) + ".ledger");
}

std::string FormatHealth(const metrics::GeneratorHealth& h, const std::string& ledger) {
  std::ostringstream out;
  out << "scheduled=" << h.scheduled << "\n"
      << "dispatched=" << h.dispatched << "\n"
      << "shed=" << h.shed << "\n"
      << "schedule_seconds=" << Number(h.schedule_seconds) << "\n"
      << "dispatch_seconds=" << Number(h.dispatch_seconds) << "\n"
      << "offered_rate=" << Number(h.offered_rate) << "\n"
      << "achieved_rate=" << Number(h.achieved_rate) << "\n"
      << "lag_p50_ms=" << Number(h.lag_p50_ms) << "\n"
      << "lag_p99_ms=" << Number(h.lag_p99_ms) << "\n"
      << "lag_max_ms=" << Number(h.lag_max_ms) << "\n"
      << "cpu_seconds=" << Number(h.cpu_seconds) << "\n"
      << "generator_failed=" << h.generator_failed << "\n"
      << "late_completions=" << h.late_completions << "\n"
      << "generator_limited=" << (h.generator_limited ? 1 : 0) << "\n"
      << "reason=" << h.reason << "\n";  // one line: the runner's reason has no newline
  if (!ledger.empty()) out << "ledger=" << ledger << "\n";
  return out.str();
}

metrics::GeneratorHealth ParseHealth(const std::string& text, const std::string& name) {
  std::map<std::string, std::string> values;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw std::runtime_error(name + ":" + std::to_string(n) + ": expected key=value, got '" + line + "'");
    }
    values[line.substr(0, eq)] = line.substr(eq + 1);
  }
  auto get = [&](const char* key) -> const std::string& {
    const auto it = values.find(key);
    if (it == values.end()) throw std::runtime_error(name + ": no '" + key + "'");
    return it->second;
  };
  auto number = [&](const char* key) {
    const std::string& v = get(key);
    std::size_t used = 0;
    double d = 0;
    try {
      d = std::stod(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (v.empty() || used != v.size()) throw std::runtime_error(name + ": '" + key + "' is not a number: '" + v + "'");
    return d;
  };
  metrics::GeneratorHealth h;
  h.scheduled = static_cast<std::uint64_t>(number("scheduled"));
  h.dispatched = static_cast<std::uint64_t>(number("dispatched"));
  h.shed = static_cast<std::uint64_t>(number("shed"));
  h.schedule_seconds = number("schedule_seconds");
  h.dispatch_seconds = number("dispatch_seconds");
  h.offered_rate = number("offered_rate");
  h.achieved_rate = number("achieved_rate");
  h.lag_p50_ms = number("lag_p50_ms");
  h.lag_p99_ms = number("lag_p99_ms");
  h.lag_max_ms = number("lag_max_ms");
  h.cpu_seconds = number("cpu_seconds");
  h.generator_failed = static_cast<std::uint64_t>(number("generator_failed"));
  h.late_completions = static_cast<std::uint64_t>(number("late_completions"));
  h.generator_limited = number("generator_limited") != 0;
  h.reason = get("reason");
  return h;
}

void WriteWorkerFiles(const std::filesystem::path& dir, const metrics::TimelineFileHeader& header,
                      const metrics::LoadTimeline& timeline, const metrics::GeneratorHealth& health,
                      bool with_ledger) {
  const std::string ledger = with_ledger ? LedgerPath(dir, header.worker).filename().string() : "";
  WriteAtomically(HealthPath(dir, header.worker), [&](std::ostream& out) { out << FormatHealth(health, ledger); });
  WriteAtomically(TimelinePath(dir, header.worker),
                  [&](std::ostream& out) { metrics::WriteTimelineFile(timeline, header, out); });
}

MergedRun MergeWorkerRun(const std::filesystem::path& dir, int workers, const gates::GateBudgets& budgets,
                         const std::optional<config::SloSpec>& slo) {
  MergedRun run;
  run.workers.resize(static_cast<std::size_t>(std::max(workers, 0)));
  std::optional<std::int64_t> start_unix_ms;
  std::optional<bool> ledgers_kept;  // set by the first worker merged
  bool any = false;
  for (int k = 0; k < workers; ++k) {
    const std::filesystem::path timeline_path = TimelinePath(dir, k);
    bool found = false;
    const std::string text = ReadWhole(timeline_path, found);
    if (!found) {
      run.problems.push_back("worker " + std::to_string(k) + ": no " + timeline_path.string() +
                             " (the worker did not finish: it died, was killed or never started)");
      continue;
    }
    metrics::TimelineFile file;
    try {
      std::istringstream in(text);
      file = metrics::ReadTimelineFile(in, timeline_path.string());
    } catch (const metrics::TimelineFileError& e) {
      run.problems.push_back("worker " + std::to_string(k) + ": " + e.what());
      continue;
    }
    if (file.header.worker != k || file.header.workers != workers) {
      run.problems.push_back("worker " + std::to_string(k) + ": " + timeline_path.string() + " is worker " +
                             std::to_string(file.header.worker) + " of " + std::to_string(file.header.workers) +
                             ", not " + std::to_string(k) + " of " + std::to_string(workers));
      continue;
    }
    if (start_unix_ms && *start_unix_ms != file.header.start_unix_ms) {
      run.problems.push_back("worker " + std::to_string(k) + ": started its schedule at unix ms " +
                             std::to_string(file.header.start_unix_ms) + ", the others at " +
                             std::to_string(*start_unix_ms) + ": not one run");
      continue;
    }
    std::string ledger_name;
    try {
      bool health_found = false;
      const std::string health_text = ReadWhole(HealthPath(dir, k), health_found);
      if (!health_found) throw std::runtime_error("no " + HealthPath(dir, k).string());
      run.workers[static_cast<std::size_t>(k)] = ParseHealth(health_text, HealthPath(dir, k).string());
      ledger_name = LedgerNamed(health_text);
    } catch (const std::runtime_error& e) {
      run.problems.push_back("worker " + std::to_string(k) + ": " + e.what());
      continue;
    }
    // Every worker keeps a ledger or none does: one without it would make the merged ledger lighter.
    if (ledgers_kept && *ledgers_kept != !ledger_name.empty()) {
      run.problems.push_back("worker " + std::to_string(k) + ": " +
                             (ledger_name.empty() ? "kept no ledger, the others did" : "kept a ledger, the others did not"));
      continue;
    }
    if (!ledger_name.empty()) {
      std::optional<ledger::LedgerFile> worker_ledger =
          ReadWorkerLedger(dir, k, workers, file.header.start_unix_ms, ledger_name, run.problems);
      if (!worker_ledger) continue;
      if (!run.ledger) {
        run.ledger.emplace();
        for (const auto& [name, value] : worker_ledger->header) {
          if (name != kLedgerWorker) run.ledger->header.emplace_back(name, value);
        }
      } else if (worker_ledger->HeaderValue("target.kind") != run.ledger->HeaderValue("target.kind") ||
                 worker_ledger->HeaderValue("target.namespace") != run.ledger->HeaderValue("target.namespace")) {
        run.problems.push_back("worker " + std::to_string(k) + ": its ledger is of target " +
                               worker_ledger->HeaderValue("target.kind") + " namespace " +
                               worker_ledger->HeaderValue("target.namespace") + ", the others' of " +
                               run.ledger->HeaderValue("target.kind") + " namespace " +
                               run.ledger->HeaderValue("target.namespace"));
        continue;
      }
      run.ledger->acknowledged += worker_ledger->acknowledged;
      for (ledger::Promise& p : worker_ledger->promises) run.ledger->promises.push_back(std::move(p));
      for (ledger::IndeterminatePromise& p : worker_ledger->indeterminate) run.ledger->indeterminate.push_back(std::move(p));
    }
    ledgers_kept = !ledger_name.empty();
    start_unix_ms = file.header.start_unix_ms;
    if (!any) {
      run.timeline = metrics::LoadTimeline(file.timeline.clock());
      any = true;
    }
    run.timeline.Merge(file.timeline);
  }

  // A merged ledger lacking a worker's promises would pass lighter: none at all then (workers-complete
  // is red, and each worker's own ledger is still there for aftershock-verify).
  if (!run.problems.empty()) run.ledger.reset();
  // The merged ledger in arrival order, as one process would have written it.
  if (run.ledger) {
    std::stable_sort(run.ledger->promises.begin(), run.ledger->promises.end(),
                     [](const ledger::Promise& a, const ledger::Promise& b) { return a.unix_ms < b.unix_ms; });
    std::stable_sort(run.ledger->indeterminate.begin(), run.ledger->indeterminate.end(),
                     [](const ledger::IndeterminatePromise& a, const ledger::IndeterminatePromise& b) {
                       return a.unix_ms < b.unix_ms;
                     });
  }

  // Merged health: counts summed, rates added, lag percentiles from the merged histograms.
  metrics::GeneratorHealth& m = run.merged;
  std::vector<std::string> limited;
  for (int k = 0; k < workers; ++k) {
    const metrics::GeneratorHealth& h = run.workers[static_cast<std::size_t>(k)];
    m.scheduled += h.scheduled;
    m.dispatched += h.dispatched;
    m.shed += h.shed;
    m.schedule_seconds = std::max(m.schedule_seconds, h.schedule_seconds);
    m.dispatch_seconds = std::max(m.dispatch_seconds, h.dispatch_seconds);
    m.offered_rate += h.offered_rate;
    m.achieved_rate += h.achieved_rate;
    m.cpu_seconds += h.cpu_seconds;
    m.generator_failed += h.generator_failed;
    m.late_completions += h.late_completions;
    if (h.generator_limited) limited.push_back("worker " + std::to_string(k) + ": " + h.reason);
  }
  metrics::LatencyHistogram lag;
  for (const metrics::SecondBucket& s : run.timeline.seconds()) lag.Merge(s.dispatch_lag);
  m.lag_p50_ms = Ms(lag.ValueAtPercentile(50));
  m.lag_p99_ms = Ms(lag.ValueAtPercentile(99));
  m.lag_max_ms = Ms(lag.Max());
  m.generator_limited = !limited.empty();
  for (const std::string& l : limited) m.reason += (m.reason.empty() ? "" : "; ") + l;

  gates::GateResult complete;
  complete.name = "workers-complete";
  complete.passed = run.problems.empty();
  complete.message = run.problems.empty() ? std::to_string(workers) + " of " + std::to_string(workers) +
                                                " workers finished and their files merged"
                                          : std::to_string(run.problems.size()) + " of " + std::to_string(workers) +
                                                " workers missing from the merge: " + run.problems.front();
  for (std::size_t i = 1; i < run.problems.size(); ++i) complete.message += "; " + run.problems[i];
  complete.figures = {{"workers", workers}, {"workers_missing", static_cast<double>(run.problems.size())}};
  complete.Declare(gates::FigureDirection::kNeither, {"workers"})
      .Declare(gates::FigureDirection::kLowerIsBetter, {"workers_missing"});

  gates::GateSet set;
  set.Add(gates::TrafficServedGate());
  set.Add(gates::LongestGapGate());
  set.Add(gates::LongestOutageGate());
  set.Add(gates::UnavailableSecondsGate());
  set.Add(gates::LatencyP99Gate());
  set.Add(gates::RetryAmplificationGate());
  set.Add(gates::ShedOutweighsFailuresGate());
  set.Add(gates::GeneratorLimitedGate());
  gates::GateInputs inputs;
  inputs.timeline = &run.timeline;
  inputs.health = &run.merged;
  inputs.budgets = budgets;
  run.gates.push_back(std::move(complete));
  for (gates::GateResult& r : set.Evaluate(inputs)) {
    // Merged per second, a success's first and last completion are exact (min, max over workers), so
    // every gap that crosses a second boundary is the one a single generator would measure; a gap
    // inside one second is the largest any worker saw there, an upper bound (under 1 s).
    if (r.name == gates::kLongestGap && workers > 1) {
      for (const auto& [figure, value] : r.figures) {
        if (figure == "p1_longest_gap_ms" && value < 1000) {
          r.message += "; under 1 s it may lie inside one second, where the merge keeps the largest gap any "
                       "worker saw: an upper bound";
        }
      }
    }
    run.gates.push_back(std::move(r));
  }
  if (slo && !slo->empty()) gates::AppendGateResults(run.gates, gates::EvaluateSloGates(*slo, run.timeline));
  run.passed = gates::AllPassed(run.gates);
  run.report = gates::FormatGateReport(run.gates);
  return run;
}

}  // namespace aftershock::loadgen
