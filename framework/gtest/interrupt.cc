#include "framework/gtest/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace aftershock::gtest_integration {
namespace {

// Written by the signal handler, so it is process-wide by nature; lock-free to be signal-safe.
std::atomic<bool> interrupt_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void OnInterruptSignal(int sig) {
  if (interrupt_requested.exchange(true)) {
    // Second signal: the user means it.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  static const char kNotice[] =
      "\naftershock: interrupt requested: stopping load, reverting faults, emitting timelines "
      "(send it again to abort at once)\n";
  const ssize_t ignored = write(STDERR_FILENO, kNotice, sizeof(kNotice) - 1);
  (void)ignored;
}

}  // namespace

void InstallInterruptHandlers() {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = OnInterruptSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // blocking calls carry on; scenarios poll InterruptRequested()
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool InterruptRequested() { return interrupt_requested.load(); }

void ResetInterruptRequestForTesting() { interrupt_requested.store(false); }

}  // namespace aftershock::gtest_integration
