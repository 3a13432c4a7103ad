// A worker's files through its log. In a Kubernetes Indexed Job a worker's --out folder dies with its
// pod, but the pod's log outlives it (kubectl logs), so `run --emit=stdout` also prints each file it
// wrote between two marker lines:
//
//   ##aftershock-loadgen BEGIN worker-0.health
//   <the file's lines>
//   ##aftershock-loadgen END worker-0.health lines=12
//
// and `merge --logs=A,B,...` recovers them into --dir before merging. Text before the BEGIN marker on
// its line (kubectl logs --prefix, a timestamp) is the block's prefix: a line of the block carries it,
// a line without it belongs to something else and is skipped. Only the names worker-<k>.health,
// worker-<k>.ledger and worker-<k>.timeline are ever written; a block cut short (no END, or an END whose lines= differs)
// is not written at all, so the merge's workers-complete gate names the worker instead of merging a
// partial file.
//
//   EmitWorkerFiles(std::cout, out_dir, /*worker=*/0);
//   RecoveredFiles r = RecoverWorkerFiles(log_text, "pod-0.log", dir);   // r.problems: cut-short blocks
#ifndef AFTERSHOCK_TOOLS_LOADGEN_WORKER_LOG_H_
#define AFTERSHOCK_TOOLS_LOADGEN_WORKER_LOG_H_

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace aftershock::loadgen {

// Prints worker `worker`'s health, ledger (when it kept one) and timeline files from `dir` as marked
// blocks, the timeline last; flushes. Throws
// std::runtime_error naming a file it cannot read.
void EmitWorkerFiles(std::ostream& out, const std::filesystem::path& dir, int worker);

struct RecoveredFiles {
  std::vector<std::string> written;   // file names written into the folder
  std::vector<std::string> problems;  // "<source>:<line>: worker-1.timeline cut short (...)", ...
};

// Writes every complete block of `log` into `dir` (atomically, through a temporary file). `source`
// names the log in problems. Never throws for a malformed log; throws std::runtime_error when a
// file cannot be written.
RecoveredFiles RecoverWorkerFiles(std::string_view log, const std::string& source, const std::filesystem::path& dir);

}  // namespace aftershock::loadgen

#endif  // AFTERSHOCK_TOOLS_LOADGEN_WORKER_LOG_H_
