// The `aftershock-verify` command: re-verifies a ledger file (ledger_file.h) against a live target
// after the run, e.g. the ledger a SIGKILLed or crashed scenario left in its artifacts folder, and
// prints the same promise gate lines (ledger-not-empty, verification-decided, P2, P3) a scenario
// prints, with the same exit code convention.
//
// The target comes from the file's header (`target.kind`, `target.addresses`, ...) unless flags
// override it; each kind is a VerifierFactory. aftershock-verify has the pseudonym reference
// target built in; a user's own target plugs in by writing a three-line main:
//
//   int main(int argc, char** argv) {
//     aftershock::verify::VerifierFactory mine{"my-service", [](const aftershock::verify::TargetArgs& t) {
//       return MakeMyVerifier(t.Get("target.addresses"));
//     }};
//     return aftershock::verify::RunVerifyCommand({argv + 1, argv + argc}, {mine}, std::cout, std::cerr);
//   }
//
// Exit codes: 0 every promise gate passed, 1 a gate is red, 2 bad flags or an unreadable ledger.
#ifndef AFTERSHOCK_TOOLS_VERIFY_VERIFY_COMMAND_H_
#define AFTERSHOCK_TOOLS_VERIFY_VERIFY_COMMAND_H_

#include <functional>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/ledger/verifier.h"

namespace aftershock::verify {

// The target's identity: the ledger header, with --target-arg=name=value overrides applied.
class TargetArgs {
 public:
  explicit TargetArgs(std::vector<std::pair<std::string, std::string>> values) : values_(std::move(values)) {}
  // The value of `name`; throws std::invalid_argument naming it (and the --target-arg flag) when absent.
  std::string Get(std::string_view name) const;
  std::string GetOr(std::string_view name, std::string fallback) const;
  const std::vector<std::pair<std::string, std::string>>& values() const { return values_; }

 private:
  std::vector<std::pair<std::string, std::string>> values_;
};

struct VerifierFactory {
  std::string kind;  // matches the ledger header's target.kind, or --target=KIND
  std::function<std::unique_ptr<ledger::PromiseVerifier>(const TargetArgs&)> make;
};

// `args` without the program name. Writes the report to `out`, errors to `err`.
int RunVerifyCommand(const std::vector<std::string>& args, const std::vector<VerifierFactory>& factories,
                     std::ostream& out, std::ostream& err);

// The usage text.
std::string VerifyUsage();

}  // namespace aftershock::verify

#endif  // AFTERSHOCK_TOOLS_VERIFY_VERIFY_COMMAND_H_
