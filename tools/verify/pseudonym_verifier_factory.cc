#include "tools/verify/pseudonym_verifier_factory.h"

#include <chrono>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fixtures/targets/pseudonym/adapter/pseudonym_target.h"

namespace aftershock::verify {
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

// The verifier calls through stubs its target owns: keep both together.
class PseudonymFileVerifier : public ledger::PromiseVerifier {
 public:
  explicit PseudonymFileVerifier(std::unique_ptr<fixtures::PseudonymTarget> target)
      : target_(std::move(target)), inner_(target_->MakeVerifier()) {}
  ledger::PromiseCheck Check(const ledger::Promise& p, std::chrono::system_clock::time_point deadline) override {
    return inner_->Check(p, deadline);
  }
  ledger::IndeterminateCheck Probe(const ledger::IndeterminatePromise& p,
                                   std::chrono::system_clock::time_point deadline) override {
    return inner_->Probe(p, deadline);
  }

 private:
  std::unique_ptr<fixtures::PseudonymTarget> target_;
  std::unique_ptr<ledger::PromiseVerifier> inner_;
};

}  // namespace

VerifierFactory PseudonymVerifierFactory(bool allow_non_loopback) {
  return {"pseudonym", [allow_non_loopback](const TargetArgs& t) -> std::unique_ptr<ledger::PromiseVerifier> {
            const std::vector<std::string> addresses = SplitCommas(t.Get("target.addresses"));
            if (addresses.empty()) throw std::invalid_argument("target.addresses is empty");
            fixtures::PseudonymTargetOptions options;
            options.namespace_name = t.Get("target.namespace");
            options.channels = 1;
            options.allow_non_loopback = allow_non_loopback;
            return std::make_unique<PseudonymFileVerifier>(
                std::make_unique<fixtures::PseudonymTarget>(addresses, options));
          }};
}

}  // namespace aftershock::verify
