// Ledger file: the promises of a run written to the artifacts folder, so the run can be re-verified
// later (against the same service, after the fact) without re-running the load.
//
// Format (UTF-8 text, one record a line, fields separated by a tab; in every field a backslash,
// tab, newline and carriage return are written as \\, \t, \n and \r):
//
//   # aftershock-ledger v1
//   # acknowledged=48213
//   kind	unix_ms	key	value	code
//   promise	1733040000123	alice	p-17	
//   indeterminate	1733040000456	bob		DEADLINE_EXCEEDED
//
// The first line is the version; further `#` lines are metadata (`acknowledged=` is read back,
// others are kept as comments); the column line comes before the first record. Anything else is an
// error naming the file and line.
//
//   WriteLedgerFile(artifacts + "/ledger.tsv", ledger);
//   LedgerFile again = ReadLedgerFile(artifacts + "/ledger.tsv");
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_LEDGER_FILE_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_LEDGER_FILE_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "framework/ledger/promise.h"
#include "framework/ledger/promise_ledger.h"

namespace aftershock::ledger {

inline constexpr std::string_view kLedgerFileVersionLine = "# aftershock-ledger v1";

struct LedgerFile {
  std::uint64_t acknowledged = 0;  // promises acknowledged in the run (the file may hold a sample)
  std::vector<Promise> promises;
  std::vector<IndeterminatePromise> indeterminate;

  friend bool operator==(const LedgerFile&, const LedgerFile&) = default;
};

// Thrown for unreadable or malformed files; what() is "<path>:<line>: <problem>".
class LedgerFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes atomically (a temporary file beside `path`, then rename). Throws LedgerFileError.
void WriteLedgerFile(const std::string& path, const LedgerFile& file);
// The ledger's Sample(), Indeterminate() and acknowledged() count.
void WriteLedgerFile(const std::string& path, const PromiseLedger& ledger);
LedgerFile ReadLedgerFile(const std::string& path);

// The same format in memory; `source` names the text in errors.
std::string FormatLedgerFile(const LedgerFile& file);
LedgerFile ParseLedgerFile(std::string_view text, const std::string& source);

}  // namespace aftershock::ledger

#endif  // AFTERSHOCK_FRAMEWORK_LEDGER_LEDGER_FILE_H_
