#include "framework/scenario/internal/convergence.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>

#include "framework/common/run_clock.h"

namespace aftershock::scenario::internal {
namespace {

Convergence Ask(ScenarioTarget& target, bool* has_check) {
  try {
    std::optional<Convergence> answer = target.CheckConverged();
    if (!answer) {
      *has_check = false;
      return {.converged = true, .detail = {}};
    }
    return *answer;
  } catch (const std::exception& e) {
    return {.converged = false, .detail = std::string("CheckConverged threw: ") + e.what()};
  }
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

}  // namespace

std::optional<gates::GateResult> AwaitConvergence(ScenarioTarget& target, std::chrono::milliseconds timeout,
                                                  const std::function<bool()>& stop_requested,
                                                  std::chrono::milliseconds poll) {
  const auto start = Clock::now();
  const auto deadline = start + timeout;
  int checks = 0;
  Convergence last;
  bool stopped = false;
  // Bounded: at most timeout / poll + 1 checks (and one always, even with a zero timeout).
  while (true) {
    bool has_check = true;
    last = Ask(target, &has_check);
    ++checks;
    if (!has_check) return std::nullopt;
    if (last.converged) break;
    const auto now = Clock::now();
    if (now >= deadline) break;
    if (stop_requested && stop_requested()) {
      stopped = true;
      break;
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(poll, deadline - now));
  }
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  gates::GateResult gate;
  gate.name = kConvergedGate;
  gate.passed = last.converged;
  if (last.converged) {
    gate.message = "converged after " + Seconds(waited) + " (" + std::to_string(checks) + " check(s))";
  } else {
    const std::string reason = last.detail.empty() ? "the target gave no reason" : last.detail;
    gate.message = (stopped ? "not converged when the run was stopped after " : "not converged within ") +
                   Seconds(stopped ? waited : std::chrono::duration<double>(timeout).count()) + " (" +
                   std::to_string(checks) + " check(s)): " + reason +
                   "; verification ran on a system still settling";
  }
  gate.figures = {{"converge_seconds", waited}, {"converge_checks", static_cast<double>(checks)}};
  gate.Declare(gates::FigureDirection::kLowerIsBetter, {"converge_seconds", "converge_checks"});
  return gate;
}

}  // namespace aftershock::scenario::internal
