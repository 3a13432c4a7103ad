#include "framework/chaos/request_header_fault.h"

#include <stdexcept>
#include <utility>

namespace aftershock::chaos {

RequestHeader::RequestHeader(std::string name) : name_(std::move(name)) {
  if (name_.empty()) throw std::invalid_argument("RequestHeader: the header name must not be empty");
}

std::optional<std::string> RequestHeader::Value() const {
  std::lock_guard<std::mutex> lock(mu_);
  return value_;
}

void RequestHeader::Set(std::string value) {
  std::lock_guard<std::mutex> lock(mu_);
  value_ = std::move(value);
}

void RequestHeader::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  value_.reset();
}

RequestHeaderFault::RequestHeaderFault(std::string name, std::shared_ptr<RequestHeader> header, std::string value,
                                       Options options)
    : name_(std::move(name)), header_(std::move(header)), value_(std::move(value)), options_(std::move(options)) {
  if (name_.empty()) throw std::invalid_argument("RequestHeaderFault: the fault name must not be empty");
  if (!header_) throw std::invalid_argument("RequestHeaderFault '" + name_ + "': no header");
  if (value_.empty()) throw std::invalid_argument("RequestHeaderFault '" + name_ + "': the header value must not be empty");
}

std::string RequestHeaderFault::detail() const { return header_->name() + ": " + value_; }

void RequestHeaderFault::Apply() { header_->Set(value_); }

void RequestHeaderFault::Revert() { header_->Clear(); }

Confirmation RequestHeaderFault::ConfirmApplied(Clock::time_point deadline) {
  if (options_.confirm) return options_.confirm(deadline);
  return Confirmation::NotConfirmable("the header rides on the driver's own requests; only the service can tell "
                                      "whether it acted on it (give RequestHeaderFault::Options::confirm)");
}

Confirmation RequestHeaderFault::ConfirmReverted(Clock::time_point) {
  if (header_->Value()) return Confirmation::NotConfirmed("the driver's requests still carry " + header_->name());
  return Confirmation::Confirmed("the driver's requests carry no " + header_->name() + " any more");
}

}  // namespace aftershock::chaos
