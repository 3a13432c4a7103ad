// aftershock-verify: re-verifies a ledger file against a live target (tools/verify/verify_command.h).
// Built in: the pseudonym reference target (target.kind=pseudonym; target.addresses, target.namespace).
#include <chrono>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures/targets/pseudonym/adapter/pseudonym_target.h"
#include "tools/verify/verify_command.h"

namespace {

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

// The pseudonym verifier calls through stubs its target owns: keep both together.
class PseudonymFileVerifier : public aftershock::ledger::PromiseVerifier {
 public:
  explicit PseudonymFileVerifier(std::unique_ptr<aftershock::fixtures::PseudonymTarget> target)
      : target_(std::move(target)), inner_(target_->MakeVerifier()) {}
  aftershock::ledger::PromiseCheck Check(const aftershock::ledger::Promise& p,
                                         std::chrono::system_clock::time_point deadline) override {
    return inner_->Check(p, deadline);
  }
  aftershock::ledger::IndeterminateCheck Probe(const aftershock::ledger::IndeterminatePromise& p,
                                               std::chrono::system_clock::time_point deadline) override {
    return inner_->Probe(p, deadline);
  }

 private:
  std::unique_ptr<aftershock::fixtures::PseudonymTarget> target_;
  std::unique_ptr<aftershock::ledger::PromiseVerifier> inner_;
};

}  // namespace

int main(int argc, char** argv) {
  using aftershock::verify::TargetArgs;
  aftershock::verify::VerifierFactory pseudonym{"pseudonym", [](const TargetArgs& t) {
    const std::vector<std::string> addresses = SplitCommas(t.Get("target.addresses"));
    if (addresses.empty()) throw std::invalid_argument("target.addresses is empty");
    aftershock::fixtures::PseudonymTargetOptions options;
    options.namespace_name = t.Get("target.namespace");
    options.channels = 1;
    return std::make_unique<PseudonymFileVerifier>(
        std::make_unique<aftershock::fixtures::PseudonymTarget>(addresses, options));
  }};
  return aftershock::verify::RunVerifyCommand(std::vector<std::string>(argv + 1, argv + argc), {pseudonym}, std::cout,
                                              std::cerr);
}
