#include "fuzz/internal/fuzz_target.h"

#include <cstdio>
#include <cstdlib>

namespace aftershock::fuzz {

void Require(bool holds, std::string_view invariant, std::string_view detail) {
  if (holds) return;
  std::fprintf(stderr, "fuzz invariant broken: %.*s\n", static_cast<int>(invariant.size()), invariant.data());
  if (!detail.empty()) std::fprintf(stderr, "%.*s\n", static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace aftershock::fuzz
