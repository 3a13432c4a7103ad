// RequestHeaderFault: a fault that lives in the driver's own requests. While it is applied, every
// request the workload builds carries a header (e.g. X-Chaos-Spec: fault=upstream_error;code=503 for
// a service linking the fault middleware, docs/upstream-faults.md); reverted, they carry none. So a
// header-targeted fault gets a window on the chaos timeline like every other fault, the scheduler
// reverts it on SIGINT, and gates that need the fault's window (the breaker gates) read it there.
//
//   auto header = std::make_shared<RequestHeader>("X-Chaos-Spec");
//   HttpWorkloadOptions o{.make_request = [header](std::uint64_t) {
//     HttpRequest r{.method = "GET", .target = "/search?q=news"};
//     if (auto v = header->Value()) r.headers.emplace_back(header->name(), *v);
//     return r;
//   }};
//   auto fault = std::make_shared<RequestHeaderFault>("upstream-dead", header, "fault=upstream_error;code=503",
//                                                     RequestHeaderFault::Options{.confirm = ...});
//   plan.faults.push_back({.at = 10s, .duration = 15s, .fault = fault});
#ifndef AFTERSHOCK_FRAMEWORK_CHAOS_REQUEST_HEADER_FAULT_H_
#define AFTERSHOCK_FRAMEWORK_CHAOS_REQUEST_HEADER_FAULT_H_

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "framework/chaos/fault.h"

namespace aftershock::chaos {

// The header the driver's requests carry right now; shared between the fault (which sets it) and
// the workload (which reads it for every request). Thread-safe.
class RequestHeader {
 public:
  explicit RequestHeader(std::string name);
  const std::string& name() const { return name_; }
  std::optional<std::string> Value() const;
  void Set(std::string value);
  void Clear();

 private:
  const std::string name_;
  mutable std::mutex mu_;
  std::optional<std::string> value_;
};

class RequestHeaderFault : public Fault {
 public:
  struct Options {
    // Optional proof that the service acted on the header (e.g. its fault-fired counter grew); empty:
    // the fault is "not confirmable" with the reason that only the service could tell.
    std::function<Confirmation(Clock::time_point deadline)> confirm{};
  };
  // Throws std::invalid_argument for an empty name, a null header or an empty value.
  RequestHeaderFault(std::string name, std::shared_ptr<RequestHeader> header, std::string value, Options options);
  RequestHeaderFault(std::string name, std::shared_ptr<RequestHeader> header, std::string value)
      : RequestHeaderFault(std::move(name), std::move(header), std::move(value), Options{}) {}

  std::string name() const override { return name_; }
  std::string detail() const override;  // "X-Chaos-Spec: fault=..."
  void Apply() override;
  void Revert() override;
  Confirmation ConfirmApplied(Clock::time_point deadline) override;
  // The header is gone from the driver's requests the moment Revert returns: confirmed at once.
  Confirmation ConfirmReverted(Clock::time_point deadline) override;

 private:
  std::string name_;
  std::shared_ptr<RequestHeader> header_;
  std::string value_;
  Options options_;
};

}  // namespace aftershock::chaos

#endif  // AFTERSHOCK_FRAMEWORK_CHAOS_REQUEST_HEADER_FAULT_H_
