// HappensBefore / HappensAfter: tell ThreadSanitizer about an ordering it cannot see, because it lies
// inside an uninstrumented library (Debian's gRPC: starting a call happens before its callback runs).
// Without -fsanitize=thread both are empty.
//
//   HappensBefore(&state);                                  // before handing `state` to the library
//   stub->async()->Get(ctx, req, resp, [&state](grpc::Status s) {
//     HappensAfter(&state);                                 // first thing in the library's callback
//     ...
//   });
#ifndef AFTERSHOCK_FRAMEWORK_COMMON_HAPPENS_BEFORE_H_
#define AFTERSHOCK_FRAMEWORK_COMMON_HAPPENS_BEFORE_H_

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

namespace aftershock {

inline void HappensBefore([[maybe_unused]] const void* token) {
#if defined(__SANITIZE_THREAD__)
  __tsan_release(const_cast<void*>(token));
#endif
}

inline void HappensAfter([[maybe_unused]] const void* token) {
#if defined(__SANITIZE_THREAD__)
  __tsan_acquire(const_cast<void*>(token));
#endif
}

}  // namespace aftershock

#endif  // AFTERSHOCK_FRAMEWORK_COMMON_HAPPENS_BEFORE_H_
