// OperatorHalt: a file whose presence halts resilience runs (docs/safety.md). While it exists,
// running scenarios stop (their safety watch breaches as "operator-halt") and new ones are refused;
// removing it lets the next scenario run. The path comes from --aftershock_halt_file or
// AFTERSHOCK_HALT_FILE (docs/environment.md); without one there is no operator halt.
//
//   OperatorHalt halt("/run/aftershock/halt");
//   if (std::optional<std::string> why = halt.Check()) refuse(*why);   // "operator halt: /run/... exists ..."
//   envelope_options.halt = halt;                                       // and stop a running one
//
//   $ touch /run/aftershock/halt     # the operator, from any shell
#ifndef AFTERSHOCK_FRAMEWORK_SAFETY_OPERATOR_HALT_H_
#define AFTERSHOCK_FRAMEWORK_SAFETY_OPERATOR_HALT_H_

#include <optional>
#include <string>

#include "framework/safety/stop_condition.h"

namespace aftershock::safety {

class OperatorHalt {
 public:
  // Throws std::invalid_argument for an empty or relative path (a relative one would depend on each
  // test's working directory, so one halt file would not halt them all).
  explicit OperatorHalt(std::string path);

  const std::string& path() const { return path_; }
  bool Present() const;
  // The refusal, naming the file, while it exists; nullopt otherwise.
  std::optional<std::string> Check() const;
  // The halt as a condition of an AbortEnvelope, named "operator-halt": breaches at the first
  // reading that finds the file.
  StopCondition AsCondition() const;

 private:
  std::string path_;
};

}  // namespace aftershock::safety

#endif  // AFTERSHOCK_FRAMEWORK_SAFETY_OPERATOR_HALT_H_
