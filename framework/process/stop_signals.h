// StopSignals: how a long-running program of aftershock (a reference server, a proxy) learns that it
// should stop. SIGTERM and SIGINT are blocked in the calling thread - call Block() first in main,
// before any thread exists, so every thread inherits the mask - and received by one Wait(), never by
// a handler running at an arbitrary point. SIGPIPE is ignored: a peer that closed its socket is an
// error code on the write, not the death of the server.
//
//   int main(int argc, char** argv) {
//     const process::StopSignals stop = process::StopSignals::Block();
//     ... parse flags, start the server ...
//     const int sig = stop.Wait();                      // SIGTERM or SIGINT
//     std::cerr << "received " << process::StopSignals::Name(sig) << ", shutting down\n";
//   }
#ifndef AFTERSHOCK_FRAMEWORK_PROCESS_STOP_SIGNALS_H_
#define AFTERSHOCK_FRAMEWORK_PROCESS_STOP_SIGNALS_H_

#include <signal.h>

namespace aftershock::process {

class StopSignals {
 public:
  // Blocks SIGTERM and SIGINT in this thread (and so in every thread it starts afterwards) and
  // ignores SIGPIPE.
  static StopSignals Block();

  // Waits for SIGTERM or SIGINT and returns which one arrived.
  int Wait() const;

  // "SIGTERM", "SIGINT", or "another signal".
  static const char* Name(int sig);

  const sigset_t& set() const { return set_; }

 private:
  StopSignals() = default;
  sigset_t set_{};
};

}  // namespace aftershock::process

#endif  // AFTERSHOCK_FRAMEWORK_PROCESS_STOP_SIGNALS_H_
