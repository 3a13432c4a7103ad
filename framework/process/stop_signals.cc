#include "framework/process/stop_signals.h"

#include <pthread.h>

namespace aftershock::process {

StopSignals StopSignals::Block() {
  StopSignals stop;
  sigemptyset(&stop.set_);
  sigaddset(&stop.set_, SIGTERM);
  sigaddset(&stop.set_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop.set_, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return stop;
}

int StopSignals::Wait() const {
  int sig = 0;
  // sigwait fails only for an invalid set; the set is always valid, so this loop ends with a signal.
  while (sigwait(&set_, &sig) != 0) {
  }
  return sig;
}

const char* StopSignals::Name(int sig) {
  switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    default: return "another signal";
  }
}

}  // namespace aftershock::process
