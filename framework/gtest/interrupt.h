// Interrupt handling for suite binaries: Ctrl-C (SIGINT) or SIGTERM asks the running scenario to
// stop early instead of killing the process, so it can stop its load, revert its faults and emit
// the timelines it has. A second signal restores the default action and re-raises it (the
// process then dies as usual).
//
// aftershock_gtest_main calls InstallInterruptHandlers(); scenarios poll:
//   while (!InterruptRequested() && Clock::now() < stage_end) { ... }
#ifndef AFTERSHOCK_FRAMEWORK_GTEST_INTERRUPT_H_
#define AFTERSHOCK_FRAMEWORK_GTEST_INTERRUPT_H_

namespace aftershock::gtest_integration {

// Installs the SIGINT and SIGTERM handlers (idempotent). The handlers only set a flag and write
// one notice to stderr (both async-signal-safe).
void InstallInterruptHandlers();

// True once SIGINT or SIGTERM arrived after InstallInterruptHandlers().
bool InterruptRequested();

// Test hook: forgets an earlier interrupt, so the next signal counts as the first again.
void ResetInterruptRequestForTesting();

}  // namespace aftershock::gtest_integration

#endif  // AFTERSHOCK_FRAMEWORK_GTEST_INTERRUPT_H_
