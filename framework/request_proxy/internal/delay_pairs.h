// The request proxy tests' measure of an injected delay: the delay a rule adds to the proxy's own
// pass-through, as the median over adjacent pairs (a call the rule delays, then one no rule
// matches, a moment apart on the same connection). Against zero, a delayed call's latency also
// counts the pass-through: 0.1-0.2 ms in the default build, 4.5-29 ms under AddressSanitizer on a
// busy 2-core machine (docs/sanitizers.md).
//
//   DelayMedians m = MedianDelayOverPairs(21, [&] { return TimedMs(delayed_call); },
//                                             [&] { return TimedMs(plain_call); });
//   EXPECT_LE(std::abs(m.added_ms - 50.0), 5.0);
#ifndef AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_DELAY_PAIRS_H_
#define AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_DELAY_PAIRS_H_

#include <algorithm>
#include <functional>
#include <vector>

namespace aftershock::request_proxy::internal {

struct DelayMedians {
  double delayed_ms;  // median latency of a call the rule delays
  double base_ms;     // median latency of one no rule matches: the proxy's own pass-through
  double added_ms;    // median of (delayed - base) over adjacent pairs: the delay the rule adds
};

// `n` pairs: `delayed()` then `base()`, each returning its call's latency in milliseconds.
inline DelayMedians MedianDelayOverPairs(int n, const std::function<double()>& delayed,
                                         const std::function<double()>& base) {
  std::vector<double> delayed_ms, base_ms, added_ms;
  for (int i = 0; i < n; ++i) {
    delayed_ms.push_back(delayed());
    base_ms.push_back(base());
    added_ms.push_back(delayed_ms.back() - base_ms.back());
  }
  const auto median = [](std::vector<double>& ms) {
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  return {median(delayed_ms), median(base_ms), median(added_ms)};
}

}  // namespace aftershock::request_proxy::internal

#endif  // AFTERSHOCK_FRAMEWORK_REQUEST_PROXY_INTERNAL_DELAY_PAIRS_H_
