// aftershock-verify: re-verifies a ledger file against a live target (tools/verify/verify_command.h).
// Built in: the pseudonym reference target (target.kind=pseudonym; target.addresses, target.namespace:
// tools/verify/pseudonym_verifier_factory.h).
#include <iostream>
#include <string>
#include <vector>

#include "tools/verify/pseudonym_verifier_factory.h"
#include "tools/verify/verify_command.h"

int main(int argc, char** argv) {
  return aftershock::verify::RunVerifyCommand(std::vector<std::string>(argv + 1, argv + argc),
                                              {aftershock::verify::PseudonymVerifierFactory()}, std::cout,
                                              std::cerr);
}
