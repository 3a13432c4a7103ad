// The pseudonym reference target's VerifierFactory (target.kind=pseudonym): what aftershock-verify has
// built in, and what `aftershock-loadgen merge --verify=true` uses on the workers' merged ledger.
// It reads target.addresses (a comma list, or one dns:/// target) and target.namespace from the
// ledger's header (or --target-arg overrides).
//
//   return RunVerifyCommand(args, {aftershock::verify::PseudonymVerifierFactory()}, std::cout, std::cerr);
#ifndef AFTERSHOCK_TOOLS_VERIFY_PSEUDONYM_VERIFIER_FACTORY_H_
#define AFTERSHOCK_TOOLS_VERIFY_PSEUDONYM_VERIFIER_FACTORY_H_

#include "tools/verify/verify_command.h"

namespace aftershock::verify {

// `allow_non_loopback`: the addresses may leave 127.0.0.0/8 (a Service in a cluster); only a caller
// that was explicitly told so passes true.
VerifierFactory PseudonymVerifierFactory(bool allow_non_loopback = false);

}  // namespace aftershock::verify

#endif  // AFTERSHOCK_TOOLS_VERIFY_PSEUDONYM_VERIFIER_FACTORY_H_
