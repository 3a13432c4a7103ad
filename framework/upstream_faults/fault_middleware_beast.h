// DecideFor: FaultMiddleware::Decide for a Boost.Beast request, reading the X-Chaos-Spec header
// (several such headers are joined with ',', as HTTP does). Header-only, so the library itself does
// not depend on Boost; a service that uses Beast already has it.
//
//   http::request<http::string_body> req = ...;
//   const auto decision = upstream_faults::DecideFor(chaos, req);
#ifndef AFTERSHOCK_FRAMEWORK_UPSTREAM_FAULTS_FAULT_MIDDLEWARE_BEAST_H_
#define AFTERSHOCK_FRAMEWORK_UPSTREAM_FAULTS_FAULT_MIDDLEWARE_BEAST_H_

#include <boost/beast/http/message.hpp>
#include <string>

#include "framework/upstream_faults/fault_middleware.h"

namespace aftershock::upstream_faults {

// The request's X-Chaos-Spec value ("" without the header).
template <class Body, class Fields>
std::string ChaosHeaderOf(const boost::beast::http::request<Body, Fields>& request) {
  std::string value;
  const auto [first, last] = request.equal_range(boost::beast::string_view(kChaosHeader.data(), kChaosHeader.size()));
  for (auto it = first; it != last; ++it) {
    if (!value.empty()) value += ',';
    value.append(it->value().data(), it->value().size());
  }
  return value;
}

template <class Body, class Fields>
FaultDecision DecideFor(const FaultMiddleware& middleware, const boost::beast::http::request<Body, Fields>& request) {
  if (!middleware.enabled()) return {};
  return middleware.Decide(ChaosHeaderOf(request));
}

}  // namespace aftershock::upstream_faults

#endif  // AFTERSHOCK_FRAMEWORK_UPSTREAM_FAULTS_FAULT_MIDDLEWARE_BEAST_H_
