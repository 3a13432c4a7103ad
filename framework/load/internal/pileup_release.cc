#include "framework/load/internal/pileup_release.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace aftershock::load::internal {

bool ReleaseFreeMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
  return true;
#else
  return false;
#endif
}

}  // namespace aftershock::load::internal
