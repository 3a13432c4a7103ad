// FaultSpec: the grammar a driver uses to ask a service (through its fault middleware, or through
// the HTTP fault proxy's rules) for upstream faults on ONE request, as in seed 002:
//
//   fault=upstream_latency;rate=0.5;ms=6000
//   fault=db_lock;ms=2000,fault=upstream_latency;rate=0.5;ms=6000      (several faults: ',')
//
// A fault is 'key=value' pairs separated by ';'; faults are separated by ',' (HTTP joins repeated
// header values with ',', so two X-Chaos-Spec headers read as one list). Whitespace around keys,
// values, ';' and ',' is ignored; keys are lowercase. Parsing is strict: an unknown fault, an
// unknown key, a key the fault does not take, a duplicate key, a missing required key, a bad number
// or an out-of-range value throws FaultSpecError naming the fault's index (1-based) and the field.
// FormatFaultSpec writes the canonical form (fields in a fixed order, defaults left out), and
// ParseFaultSpec(FormatFaultSpec(x)) == x.
//
//   auto list = upstream_faults::ParseFaultSpec("fault=upstream_error;code=503;rate=0.2");
//   list.faults[0].code;                       // 503
//   upstream_faults::FormatFaultSpec(list);    // "fault=upstream_error;rate=0.2;code=503"
//
// The fields per fault (docs/upstream-faults.md has the table):
//   upstream_latency  ms (required, > 0), jitter_ms (optional, >= 0, <= ms), rate
//   upstream_error    code (required, 500..599 or 429), rate
//   upstream_partial  keep (optional, items kept, >= 0, default 1), rate
//   db_lock           ms (required, > 0), rate
//   cache_poison      rate
//   clock_skew        skew_s (required, signed seconds, != 0), rate
// rate is optional everywhere, in [0,1], default 1.
#ifndef AFTERSHOCK_FRAMEWORK_UPSTREAM_FAULTS_FAULT_SPEC_H_
#define AFTERSHOCK_FRAMEWORK_UPSTREAM_FAULTS_FAULT_SPEC_H_

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace aftershock::upstream_faults {

enum class FaultKind { kUpstreamLatency, kUpstreamError, kUpstreamPartial, kDbLock, kCachePoison, kClockSkew };

// "upstream_latency", "upstream_error", "upstream_partial", "db_lock", "cache_poison", "clock_skew".
std::string_view FaultKindName(FaultKind kind);
// The kind for a name; nullopt for an unknown one.
std::optional<FaultKind> FaultKindFromName(std::string_view name);

// One fault of a spec. Only the fields its kind takes are meaningful; the others keep their defaults
// (so two specs compare equal exactly when they format the same).
struct FaultSpec {
  FaultKind kind = FaultKind::kUpstreamLatency;
  double rate = 1.0;                   // the share of requests it fires on, [0,1]
  std::chrono::milliseconds ms{0};     // upstream_latency: the delay; db_lock: how long the lock is held
  std::chrono::milliseconds jitter{0}; // upstream_latency: +/- this much, uniformly
  int code = 0;                        // upstream_error: the status the upstream answers
  int keep = 1;                        // upstream_partial: the items the truncated payload keeps
  std::chrono::seconds skew{0};        // clock_skew: added to the service's TTL clock
  friend bool operator==(const FaultSpec&, const FaultSpec&) = default;
};

struct FaultSpecList {
  std::vector<FaultSpec> faults;
  friend bool operator==(const FaultSpecList&, const FaultSpecList&) = default;
};

// What a malformed spec throws: what() names the fault index and the field, e.g.
// "fault 2: 'ms' must be a positive integer, got 'x'".
class FaultSpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses a spec; an empty or all-blank text is an empty list. Throws FaultSpecError.
FaultSpecList ParseFaultSpec(std::string_view text);
// The canonical text of a list (empty for an empty list).
std::string FormatFaultSpec(const FaultSpecList& list);
std::string FormatFaultSpec(const FaultSpec& fault);

// The request header the spec travels in.
inline constexpr std::string_view kChaosHeader = "X-Chaos-Spec";

}  // namespace aftershock::upstream_faults

#endif  // AFTERSHOCK_FRAMEWORK_UPSTREAM_FAULTS_FAULT_SPEC_H_
