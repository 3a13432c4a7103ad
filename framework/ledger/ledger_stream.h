// LedgerStream: the ledger file written while the run goes, so a crashed or killed run leaves every
// promise it was given behind (and `aftershock-verify` can re-verify them against the live target).
//
// Appends are cheap (one line formatted into a buffer under a mutex); a writer thread hands the
// buffer to the kernel with write(2) every `flush_interval` (default 200 ms, at most 1 s), so a
// SIGKILLed process loses at most that much. Close() writes the last lines and an end line
// `# end acknowledged=N indeterminate=M`; a file without it comes from a run that did not finish.
// There is no fsync: the file survives the process, not a machine crash.
//
// Format (ledger_file.h, version 2): the version line, `# name=value` header lines (the target's
// identity: addresses, namespace, run id), the column line, then one record per line in the order
// the acknowledgements arrived.
//
//   auto stream = LedgerStream::Open(dir + "/ledger.tsv", {{"target.addresses", "127.0.0.1:5001"}});
//   ledger.AttachStream(stream);     // every RecordAcknowledged / RecordIndeterminate is appended
//   ...
//   stream->Close();                 // or let the destructor do it
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_LEDGER_STREAM_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_LEDGER_STREAM_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "framework/ledger/promise.h"

namespace aftershock::ledger {

using LedgerHeader = std::vector<std::pair<std::string, std::string>>;

class LedgerStream {
 public:
  // Creates (truncates) `path` and writes the header; throws LedgerFileError naming the path.
  // Header names must be [a-z0-9._-]+; values are escaped like fields.
  static std::shared_ptr<LedgerStream> Open(const std::string& path, const LedgerHeader& header,
                                            std::chrono::milliseconds flush_interval = std::chrono::milliseconds(200));
  ~LedgerStream();
  LedgerStream(const LedgerStream&) = delete;
  LedgerStream& operator=(const LedgerStream&) = delete;

  void Append(const Promise& promise);
  void Append(const IndeterminatePromise& promise);
  // Writes what is buffered and the end line, and closes the file. Idempotent. Throws
  // LedgerFileError when a write failed at any point (the error is kept until then).
  void Close();

  const std::string& path() const { return path_; }
  std::uint64_t promises() const;
  std::uint64_t indeterminate() const;

 private:
  LedgerStream(std::string path, int fd, std::chrono::milliseconds flush_interval);
  void WriterLoop();
  void WriteAll(const std::string& text);  // called with write_mu_ held

  const std::string path_;
  int fd_ = -1;
  const std::chrono::milliseconds flush_interval_;

  mutable std::mutex mu_;  // buffer, counts, stop flag
  std::condition_variable cv_;
  std::string buffer_;
  std::uint64_t promises_ = 0;
  std::uint64_t indeterminate_ = 0;
  bool stop_ = false;
  bool closed_ = false;

  std::mutex write_mu_;  // the file descriptor and the write error
  std::string write_error_;
  std::thread writer_;
};

}  // namespace aftershock::ledger

#endif  // AFTERSHOCK_FRAMEWORK_LEDGER_LEDGER_STREAM_H_
