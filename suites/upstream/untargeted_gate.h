// clean-requests-unpoisoned: a header-targeted fault must touch only the requests that carry the
// header. In cache_poison, the driver's faulted requests store truncated cache entries; a request
// without the header that is answered with one (a 2xx that breaks the body contract) means the
// fault leaked into other traffic (the seed's poisoned entry served to clean requests).
//
//   auto calls = std::make_shared<UntargetedCalls>();       // fed by the workload's observer
//   observer = [calls](const load::HttpCallResult& c, const load::FinalOutcome& o) { calls->Record(c, o); };
//   ...
//   results.push_back(calls->Gate());
#ifndef AFTERSHOCK_SUITES_UPSTREAM_UNTARGETED_GATE_H_
#define AFTERSHOCK_SUITES_UPSTREAM_UNTARGETED_GATE_H_

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "framework/common/call_code.h"
#include "framework/gates/gate_result.h"
#include "framework/load/http_workload.h"
#include "framework/load/workload.h"

namespace aftershock::suites {

inline constexpr std::string_view kCleanRequestsUnpoisoned = "clean-requests-unpoisoned";

class UntargetedCalls {
 public:
  explicit UntargetedCalls(std::string header = "X-Chaos-Spec") : header_(std::move(header)) {}

  void Record(const load::HttpCallResult& call, const load::FinalOutcome& outcome) {
    const bool targeted = call.request != nullptr &&
                          std::any_of(call.request->headers.begin(), call.request->headers.end(),
                                      [&](const auto& h) { return EqualsIgnoreCase(h.first, header_); });
    std::lock_guard lock(mu_);
    if (targeted) {
      ++targeted_;
      return;
    }
    ++clean_;
    if (outcome.code == kCodeContractViolation) ++clean_poisoned_;
  }

  gates::GateResult Gate() const {
    std::lock_guard lock(mu_);
    gates::GateResult r{std::string(kCleanRequestsUnpoisoned), false, "",
                        {{"clean_calls", static_cast<double>(clean_)},
                         {"clean_calls_poisoned", static_cast<double>(clean_poisoned_)},
                         {"targeted_calls", static_cast<double>(targeted_)}}};
    const std::string counts = std::to_string(clean_poisoned_) + " of " + std::to_string(clean_) +
                               " calls without " + header_ + " broke the body contract (" +
                               std::to_string(targeted_) + " calls carried it)";
    if (clean_ == 0 || targeted_ == 0) {
      r.message = "nothing measured: " + counts + "; the scenario must send both kinds";
    } else {
      r.passed = clean_poisoned_ == 0;
      r.message = counts + (r.passed ? "" : ": the fault leaked into traffic that did not ask for it");
    }
    return r;
  }

 private:
  static bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return (x | 0x20) == (y | 0x20);
           });
  }

  const std::string header_;
  mutable std::mutex mu_;
  std::uint64_t clean_ = 0, clean_poisoned_ = 0, targeted_ = 0;
};

}  // namespace aftershock::suites

#endif  // AFTERSHOCK_SUITES_UPSTREAM_UNTARGETED_GATE_H_
