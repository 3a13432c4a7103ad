// Fuzz target: the upstream fault-spec grammar (framework/upstream_faults/fault_spec.h). Any text
// either parses or throws FaultSpecError; what parses formats to a canonical text that re-parses to
// the same list and formats to itself again.
#include <string>

#include "framework/upstream_faults/fault_spec.h"
#include "fuzz/internal/fuzz_target.h"

namespace uf = aftershock::upstream_faults;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = aftershock::fuzz::AsText(data, size);
  uf::FaultSpecList parsed;
  try {
    parsed = uf::ParseFaultSpec(text);
  } catch (const uf::FaultSpecError&) {
    return 0;  // the documented answer to a malformed spec
  }
  const std::string canonical = uf::FormatFaultSpec(parsed);
  uf::FaultSpecList again;
  try {
    again = uf::ParseFaultSpec(canonical);
  } catch (const uf::FaultSpecError& e) {
    aftershock::fuzz::Require(false, "the canonical form of a parsed spec parses", canonical + "\n" + e.what());
  }
  aftershock::fuzz::Require(again == parsed, "ParseFaultSpec(FormatFaultSpec(x)) == x", canonical);
  aftershock::fuzz::Require(uf::FormatFaultSpec(again) == canonical, "the canonical form is a fixed point", canonical);
  for (const uf::FaultSpec& fault : parsed.faults) {
    aftershock::fuzz::Require(uf::FaultKindFromName(uf::FaultKindName(fault.kind)) == fault.kind,
                              "FaultKindFromName(FaultKindName(k)) == k");
  }
  return 0;
}
