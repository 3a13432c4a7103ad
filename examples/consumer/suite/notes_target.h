// NotesTarget: the greeting service's notes as an aftershock ScenarioTarget, driven through the
// team's own synchronous client (client/notes_client.h) and load::BlockingWorkload.
//
// Each call PUTs one note under its own key; a 204 is the service's acknowledgement, so the target
// records a "written" promise (key -> value) in the ledger. After the run its verifier reads every
// promised key back with the same client: a note that is missing or different turns P3 red and is
// named in failures.txt. A PUT of a fixed value is idempotent, so the adapter may retry it.
//
//   consumer::NotesTarget target(service.address(), {.workers = 32});
//   RunAndJudge(target, {});                        // green on the healthy service
//   service.SetLoseEvery(50); RunAndJudge(target, {}, {"p3-reverse-lookup"});   // must turn P3 red
#ifndef CONSUMER_SUITE_NOTES_TARGET_H_
#define CONSUMER_SUITE_NOTES_TARGET_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "client/notes_client.h"
#include "framework/scenario/scenario_target.h"

namespace consumer {

struct NotesTargetOptions {
  int workers = 32;                  // BlockingWorkload threads running the synchronous client
  std::size_t queue_capacity = 512;  // calls that may wait for a worker
};

class NotesTarget : public aftershock::scenario::ScenarioTarget {
 public:
  NotesTarget(std::string address, NotesTargetOptions options);

  std::unique_ptr<aftershock::load::Workload> MakeWorkload(aftershock::ledger::PromiseLedger& ledger,
                                                            const aftershock::RunClock& clock) override;
  std::unique_ptr<aftershock::ledger::PromiseVerifier> MakeVerifier() override;
  aftershock::load::OutcomePolicy Policy() const override;
  aftershock::ledger::LedgerHeader Identity() const override;

  std::string KeyOf(std::uint64_t sequence) const;
  static std::string ValueOf(std::uint64_t sequence);

 private:
  std::string address_;
  NotesTargetOptions options_;
  NotesClient client_;
  std::string run_id_;  // keys of one run never collide with another's
};

}  // namespace consumer

#endif  // CONSUMER_SUITE_NOTES_TARGET_H_
