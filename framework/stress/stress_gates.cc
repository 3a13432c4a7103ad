#include "framework/stress/stress_gates.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "framework/common/call_code.h"
#include "framework/stress/internal/format.h"
#include "framework/stress/internal/gate_results.h"
#include "framework/stress/internal/scrape_coverage.h"

namespace aftershock::stress {
namespace {

using gates::GateResult;
using internal::Green;
using internal::Join;
using internal::Num;
using internal::Red;
using internal::SecondsText;
using internal::SecondsToNs;

bool InWindow(const CallRecord& r, const TimeWindow& w) {
  return w.empty() || (r.intended_ns >= SecondsToNs(w.from_seconds) && r.intended_ns < SecondsToNs(w.to_seconds));
}

std::string WindowText(const TimeWindow& w) {
  return w.empty() ? std::string("the whole run") : Num(w.from_seconds) + ".." + Num(w.to_seconds) + " s";
}

// The nearest-rank percentile of `values` (reordered); 0 when empty.
std::int64_t Percentile(std::vector<std::int64_t>& values, double p) {
  if (values.empty()) return 0;
  const double n = static_cast<double>(values.size());
  auto rank = static_cast<std::size_t>(std::ceil(std::clamp(p, 0.0, 100.0) / 100 * n));
  rank = std::clamp<std::size_t>(rank, 1, values.size()) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank), values.end());
  return values[rank];
}

std::string CallText(const CallRecord& r) {
  std::string out = "at " + SecondsText(r.intended_ns) + " ";
  out += r.status != 0 ? "HTTP " + std::to_string(r.status) : CallCodeName(r.code);
  return out + " after " + Num(static_cast<double>(r.latency_ns()) / 1e6) + " ms";
}

// One kind of violation of the shedding contract: how many, and the first few.
struct Violations {
  std::string what{};
  std::uint64_t count = 0;
  std::vector<std::string> examples{};
  void Add(const CallRecord& r, std::size_t max_examples) {
    ++count;
    if (examples.size() < max_examples) examples.push_back(CallText(r));
  }
  std::string Text() const {
    return std::to_string(count) + " " + what + (examples.empty() ? "" : " (first " + Join(examples, "; ") + ")");
  }
};

std::string ContractText(const ShedContract& c) {
  std::vector<std::string> statuses, headers{};
  for (int s : c.shed_statuses) statuses.push_back(std::to_string(s));
  for (const RequiredHeader& h : c.required_headers) headers.push_back(h.value.empty() ? h.name : h.name + ": " + h.value);
  std::string out = Join(statuses, "/");
  if (!headers.empty()) out += " with " + Join(headers, ", ");
  out += c.required_body.empty() ? " (body not checked)" : " and '" + c.required_body + "' in the body";
  return out;
}

}  // namespace

TimeWindow StageWindow(const load::RateProfile& profile, std::string_view stage, double skip_seconds) {
  double start = 0;
  std::optional<TimeWindow> window;
  for (const load::StageSpec& s : profile.stages()) {
    const double end = start + s.duration_seconds;
    if (s.name == stage) {
      if (!window) {
        window = TimeWindow{start, end};
      } else if (std::abs(window->to_seconds - start) < 1e-9) {
        window->to_seconds = end;
      } else {
        throw std::invalid_argument("stage '" + std::string(stage) + "' appears twice in the profile, apart");
      }
    }
    start = end;
  }
  if (!window) throw std::invalid_argument("the profile has no stage named '" + std::string(stage) + "'");
  if (!(skip_seconds >= 0)) throw std::invalid_argument("stage window: skip_seconds must be >= 0");
  window->from_seconds += skip_seconds;
  if (window->empty()) {
    throw std::invalid_argument("stage '" + std::string(stage) + "' is shorter than the " + Num(skip_seconds) +
                                " s skipped at its start");
  }
  return *window;
}

GateResult SheddingContractGate(const CallLog& log, const SheddingContractOptions& o) {
  if (o.plateau.empty()) throw std::invalid_argument("shedding-contract: no plateau window");
  if (!(o.capacity_rate > 0)) throw std::invalid_argument("shedding-contract: capacity_rate must be stated (> 0 /s)");
  if (!(o.min_goodput_fraction >= 0 && o.min_goodput_fraction <= 1)) {
    throw std::invalid_argument("shedding-contract: min_goodput_fraction must be in [0, 1]");
  }
  const std::string where = "under the plateau (" + WindowText(o.plateau) + ")";
  if (std::string why = log.IncompleteReason(SecondsToNs(o.plateau.to_seconds)); !why.empty()) {
    return Red(kSheddingContract, "cannot judge " + where + ": " + why);
  }
  const std::size_t n = o.max_examples;
  Violations status{"non-shed failure statuses"}, no_response{"calls without a response"},
      header{"shed responses without the required header(s)"}, body{"shed responses without the diagnostic body"};
  std::uint64_t calls = 0, ok = 0, shed = 0, clean = 0;
  for (const CallRecord& r : log.records) {
    if (!InWindow(r, o.plateau)) continue;
    ++calls;
    if (r.ok) {
      ++ok;
      continue;
    }
    if (r.shed) {
      ++shed;
      if (!r.headers_ok) header.Add(r, n);
      if (!r.body_ok) body.Add(r, n);
      if (r.headers_ok && r.body_ok) ++clean;
    } else if (r.status != 0) {
      status.Add(r, n);
    } else {
      no_response.Add(r, n);
    }
  }
  std::uint64_t refused = 0;  // the generator's in-flight ceiling, by whole seconds of the plateau
  if (o.timeline != nullptr) {
    const auto first = static_cast<std::int64_t>(std::floor(o.plateau.from_seconds));
    const auto last = static_cast<std::int64_t>(std::ceil(o.plateau.to_seconds));
    for (std::int64_t s = std::max<std::int64_t>(first, 0); s < last && s < o.timeline->size(); ++s) {
      refused += o.timeline->seconds()[static_cast<std::size_t>(s)].shed;
    }
  }
  if (calls == 0 && refused == 0) {
    return gates::NotApplicable(std::string(kSheddingContract), "no call was intended " + where);
  }
  const double seconds = o.plateau.to_seconds - o.plateau.from_seconds;
  const double goodput = static_cast<double>(ok) / seconds;
  const double fraction = goodput / o.capacity_rate;
  const std::uint64_t violations = status.count + no_response.count + header.count + body.count + refused;
  std::vector<std::pair<std::string, double>> figures = {
      {"shedding_goodput", goodput},
      {"shedding_capacity_fraction", fraction},
      {"shedding_shed_responses", static_cast<double>(shed)},
      {"shedding_violations", static_cast<double>(violations)}};

  std::vector<std::string> problems{};
  if (fraction < o.min_goodput_fraction) {
    problems.push_back("goodput " + Num(goodput) + "/s is " + Num(100 * fraction) + "% of the stated capacity " +
                       Num(o.capacity_rate) + "/s (< " + Num(100 * o.min_goodput_fraction) + "%)");
  }
  for (const Violations* v : {&status, &no_response, &header, &body}) {
    if (v->count > 0) problems.push_back(v->Text());
  }
  if (refused > 0) {
    problems.push_back(std::to_string(refused) +
                       " arrivals refused at the generator's in-flight ceiling (the target held requests instead of "
                       "shedding them)");
  }
  if (o.require_shedding && shed == 0) {
    problems.push_back("nothing was shed: the plateau did not overload the target (raise its rate above the capacity)");
  }
  const std::string figures_text = std::to_string(calls) + " calls, " + std::to_string(ok) + " ok (goodput " +
                                   Num(goodput) + "/s, " + Num(100 * fraction) + "% of " + Num(o.capacity_rate) +
                                   "/s), " + std::to_string(shed) + " shed";
  if (!problems.empty()) {
    return Red(kSheddingContract, where + ": " + Join(problems, "; ") + " [" + figures_text + "; contract: " +
                                      ContractText(log.contract) + "]",
               std::move(figures));
  }
  return Green(kSheddingContract, where + ": " + figures_text + ", every one " + ContractText(log.contract),
               std::move(figures));
}

GateResult ShedLatencyGate(const CallLog& log, const ShedLatencyOptions& o) {
  if (!(o.budget_ms > 0)) throw std::invalid_argument("shed-latency: budget_ms must be > 0");
  if (!(o.percentile > 0 && o.percentile <= 100)) throw std::invalid_argument("shed-latency: percentile must be in (0, 100]");
  const std::string where = "shed responses in " + WindowText(o.window);
  const std::int64_t end_ns = o.window.empty() ? std::numeric_limits<std::int64_t>::max() : SecondsToNs(o.window.to_seconds);
  if (std::string why = log.IncompleteReason(end_ns); !why.empty()) {
    return Red(kShedLatency, "cannot judge " + where + ": " + why);
  }
  std::vector<std::int64_t> latencies{};
  std::uint64_t from_intended = 0;  // shed responses without a send time: measured from the intended time
  for (const CallRecord& r : log.records) {
    if (!r.shed || !InWindow(r, o.window)) continue;
    const std::int64_t sent = r.sent_latency_ns();
    latencies.push_back(sent >= 0 ? sent : r.latency_ns());
    from_intended += sent >= 0 ? 0 : 1;
  }
  if (latencies.empty()) return gates::NotApplicable(std::string(kShedLatency), "no " + where + ": nothing to time");
  const std::int64_t budget_ns = static_cast<std::int64_t>(o.budget_ms * 1e6);
  const auto over = std::count_if(latencies.begin(), latencies.end(), [&](std::int64_t v) { return v > budget_ns; });
  const std::int64_t max = *std::max_element(latencies.begin(), latencies.end());
  const double p_ms = static_cast<double>(Percentile(latencies, o.percentile)) / 1e6;
  const std::string p_name = "p" + Num(o.percentile);
  std::string message = p_name + " of " + std::to_string(latencies.size()) + " " + where + ", from the send: " +
                        Num(p_ms) + " ms (budget " + Num(o.budget_ms) + " ms; max " + Num(static_cast<double>(max) / 1e6) +
                        " ms, " + std::to_string(over) + " over budget)";
  if (from_intended > 0) {
    message += "; " + std::to_string(from_intended) + " had no send time and are measured from their intended time";
  }
  std::vector<std::pair<std::string, double>> figures = {{"shed_latency_p99_ms", p_ms},
                                                         {"shed_latency_max_ms", static_cast<double>(max) / 1e6},
                                                         {"shed_latency_responses", static_cast<double>(latencies.size())}};
  return p_ms <= o.budget_ms ? Green(kShedLatency, message, std::move(figures))
                             : Red(kShedLatency, message, std::move(figures));
}

GateResult NoHangGate(const CallLog& log, const NoHangOptions& o) {
  if (o.hang_bound.count() <= 0) throw std::invalid_argument("no-hang: hang_bound must be > 0");
  const double bound_s = static_cast<double>(o.hang_bound.count()) / 1e3;
  const double deadline_s = static_cast<double>(o.call_deadline.count()) / 1e3;
  if (o.probes && o.probes->hang_bound != o.hang_bound) {
    throw std::invalid_argument("no-hang: the probes watched for " + std::to_string(o.probes->hang_bound.count()) +
                                " ms hangs, the gate's bound is " + std::to_string(o.hang_bound.count()) + " ms");
  }
  if (o.call_deadline <= o.hang_bound && !o.probes) {
    return Red(kNoHang, "a hang past " + Num(bound_s) + " s cannot be observed: the call deadline (" + Num(deadline_s) +
                            " s) cuts every call before it; set the deadline above the hang bound, or watch with "
                            "a HangProbe");
  }
  if (o.probes && o.probes->probes == 0) {
    return Red(kNoHang, "the hang probe completed no call: nothing watched for hangs past " + Num(bound_s) + " s" +
                            (o.probes->last_error.empty() ? "" : " (last error: " + o.probes->last_error + ")"),
               {{"no_hang_probes", 0}});
  }
  if (log.records.empty() && log.dropped == 0 && !o.probes) {
    return gates::NotApplicable(std::string(kNoHang), "no call was recorded");
  }
  const std::int64_t bound_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(o.hang_bound).count();
  Violations hung{"calls took longer than " + Num(bound_s) + " s"};
  std::int64_t max_ns = log.max_latency_ns;  // the recorder's covers dropped calls too
  for (const CallRecord& r : log.records) {
    max_ns = std::max(max_ns, r.latency_ns());
    if (r.latency_ns() > bound_ns) hung.Add(r, 3);
  }
  const double max_s = static_cast<double>(max_ns) / 1e9;
  std::vector<std::pair<std::string, double>> figures = {{"no_hang_max_latency_seconds", max_s},
                                                         {"no_hang_over_bound", static_cast<double>(hung.count)}};
  const std::string calls = std::to_string(log.records.size() + log.dropped) + " calls";
  std::string probes_text;
  bool probe_hung = false;
  if (o.probes) {
    const HangProbeResult& p = *o.probes;
    const double probe_max_s = static_cast<double>(p.max_latency_ns) / 1e9;
    figures.push_back({"no_hang_probes", static_cast<double>(p.probes)});
    figures.push_back({"no_hang_probes_hung", static_cast<double>(p.hung)});
    figures.push_back({"no_hang_probe_max_latency_seconds", probe_max_s});
    probe_hung = p.hung > 0;
    probes_text = "; probes: " + std::to_string(p.hung) + " of " + std::to_string(p.probes) + " took longer than " +
                  Num(bound_s) + " s (longest " + Num(probe_max_s) + " s";
    if (!p.hung_at_seconds.empty()) {
      std::vector<std::string> at;
      for (double t : p.hung_at_seconds) at.push_back(Num(t) + " s");
      probes_text += "; started at " + Join(at, ", ");
    }
    probes_text += ")";
  }
  if (hung.count > 0 || max_ns > bound_ns || probe_hung) {
    std::string message = hung.Text() + " (of " + calls + "; longest " + Num(max_s) + " s)";
    if (log.dropped > 0) message += "; the count covers the " + std::to_string(log.records.size()) + " calls kept";
    return Red(kNoHang, message + probes_text, std::move(figures));
  }
  return Green(kNoHang, "the longest of " + calls + " took " + Num(max_s) + " s (bound " + Num(bound_s) +
                            " s, call deadline " + Num(deadline_s) + " s)" + probes_text,
               std::move(figures));
}

GateResult TargetAliveGate(const TargetLiveness& t) {
  if (!t.observed) return gates::NotApplicable(std::string(kTargetAlive), "the suite did not observe " + t.target);
  std::vector<std::string> problems{};
  if (t.signal) problems.push_back("killed by signal " + std::to_string(*t.signal));
  if (t.exit_code) problems.push_back("exited with status " + std::to_string(*t.exit_code));
  if (!t.running_at_end && !t.signal && !t.exit_code) problems.push_back("not running at the end");
  if (t.restarts > 0) problems.push_back("restarted " + std::to_string(t.restarts) + " times");
  if (t.healthy_at_end && !*t.healthy_at_end) problems.push_back("did not answer its health probe after the run");
  std::vector<std::pair<std::string, double>> figures = {{"target_restarts", static_cast<double>(t.restarts)}};
  if (!problems.empty()) {
    std::string message = t.target + " " + Join(problems, "; ");
    if (!t.detail.empty()) message += " [" + t.detail + "]";
    return Red(kTargetAlive, message, std::move(figures));
  }
  return Green(kTargetAlive,
               t.target + " ran through without exit, kill or restart" +
                   std::string(t.healthy_at_end ? " and answered its health probe after the run" : ""),
               std::move(figures));
}

GateResult TargetAliveGate(const std::function<TargetLiveness()>& probe) {
  if (!probe) return gates::NotApplicable(std::string(kTargetAlive), "no liveness probe was given");
  try {
    return TargetAliveGate(probe());
  } catch (const std::exception& e) {
    return Red(kTargetAlive, std::string("the liveness probe failed: ") + e.what());
  }
}

GateResult RecoveryVelocityGate(const CallLog& log, const RecoveryVelocityOptions& o) {
  if (!(o.limit_seconds > 0)) throw std::invalid_argument("recovery-velocity: limit_seconds must be > 0");
  const std::int64_t drop_ns = SecondsToNs(o.clock.drop_seconds);
  const bool after_drop = std::any_of(log.records.begin(), log.records.end(),
                                      [&](const CallRecord& r) { return r.completed_ns >= drop_ns; });
  if (!after_drop && log.dropped == 0) {
    if (o.clock.drop_seconds < 0) throw std::invalid_argument("recovery clock: drop_seconds must be set (>= 0)");
    return gates::NotApplicable(std::string(kRecoveryVelocity),
                                "no call completed after the drop at " + Num(o.clock.drop_seconds) + " s");
  }
  const RecoveryMeasurement m = MeasureRecovery(log, o.clock);
  const std::string target = "p99 <= " + Num(o.clock.p99_target_ms) + " ms and error ratio <= " +
                             Num(o.clock.error_ratio_floor) + " for " + Num(o.clock.sustain_seconds) + " s";
  std::vector<std::pair<std::string, double>> figures = {{"recovery_seconds", m.seconds},
                                                         {"recovery_limit_seconds", o.limit_seconds}};
  if (!m.incomplete.empty()) return Red(kRecoveryVelocity, "cannot time the recovery: " + m.incomplete, std::move(figures));
  if (!m.recovered) {
    return Red(kRecoveryVelocity,
               "never recovered within the run: no " + target + " between the drop at " + Num(o.clock.drop_seconds) +
                   " s and " + Num(m.evaluated_until) + " s (last: " + m.last_unhealthy + ")",
               std::move(figures));
  }
  const std::string message = "recovered " + Num(m.seconds) + " s after the drop at " + Num(o.clock.drop_seconds) +
                              " s (" + target + " from " + Num(m.recovered_at) + " s; limit " + Num(o.limit_seconds) + " s)";
  return m.seconds <= o.limit_seconds ? Green(kRecoveryVelocity, message, std::move(figures))
                                      : Red(kRecoveryVelocity, message, std::move(figures));
}

GateResult DownstreamIsolationGate(const std::vector<MetricSample>& in_use, const std::vector<MetricSample>& size,
                                   const DownstreamIsolationOptions& o) {
  if (!(o.max_ratio > 0)) throw std::invalid_argument("downstream-isolation: max_ratio must be > 0");
  std::vector<MetricSample> ratio{};
  for (const MetricSample& s : RatioSeries(in_use, size)) {
    const double at = static_cast<double>(s.offset_ns) / 1e9;
    if (o.window.empty() || (at >= o.window.from_seconds && at < o.window.to_seconds)) ratio.push_back(s);
  }
  const std::string what = o.pool + "'s in_use and size";
  if (ratio.empty()) {
    // Nothing was seen: red, never N/A (a pool nobody could read is not an isolated pool).
    GateResult r = Red(kDownstreamIsolation,
                       "nothing was measured: no sample of " + what + " together in " + WindowText(o.window) + " (" +
                           std::to_string(in_use.size()) + " in_use and " + std::to_string(size.size()) +
                           " size samples: is the sampler running, are the selectors right?)",
                       {{"downstream_samples", 0}});
    internal::JudgeScrapeCoverage(r, o.coverage, o.max_failed_poll_ratio, what);
    return r;
  }
  const auto max = std::max_element(ratio.begin(), ratio.end(),
                                     [](const MetricSample& a, const MetricSample& b) { return a.value < b.value; });
  const auto over = std::count_if(ratio.begin(), ratio.end(), [&](const MetricSample& s) { return s.value > o.max_ratio; });
  std::vector<std::pair<std::string, double>> figures = {{"downstream_max_ratio", max->value},
                                                         {"downstream_samples", static_cast<double>(ratio.size())},
                                                         {"downstream_over_limit", static_cast<double>(over)}};
  const std::string message = o.pool + " in use reached " + Num(100 * max->value) + "% of its size at " +
                              SecondsText(max->offset_ns) + " (limit " + Num(100 * o.max_ratio) + "%; " +
                              std::to_string(over) + " of " + std::to_string(ratio.size()) + " samples over, " +
                              WindowText(o.window) + ")";
  GateResult r = over == 0 ? Green(kDownstreamIsolation, message, std::move(figures))
                            : Red(kDownstreamIsolation, message, std::move(figures));
  internal::JudgeScrapeCoverage(r, o.coverage, o.max_failed_poll_ratio, what);
  return r;
}

}  // namespace aftershock::stress
