// Ledger file: the promises of a run written to the artifacts folder, so the run can be re-verified
// later (against the same service, after the fact) without re-running the load.
//
// Format (UTF-8 text, one record a line, fields separated by a tab; in every field a backslash,
// tab, newline and carriage return are written as \\, \t, \n and \r):
//
//   # aftershock-ledger v3
//   # target.kind=pseudonym
//   # target.addresses=127.0.0.1:5001,127.0.0.1:5002
//   kind	unix_ms	key	value	code	attributes
//   promise	1733040000123	alice	p-17		
//   read-back	1733040000200	k-1	v-1		shard=2;node=kv-a
//   indeterminate	1733040000456	bob		DEADLINE_EXCEEDED	
//   # end acknowledged=1 indeterminate=1
//
// The row kind is the promise's kind (promise.h): `promise` an issued mapping (PromiseKind::kIssued,
// checked by reverse lookup and re-issue; every row of older files), `read-back` a write
// (PromiseKind::kWritten, checked by reading the key back). `attributes` are the promise's
// attributes, `name=value` joined by ';' in name order (names [a-z0-9._-]+, values escaped as fields
// and ';' as \;), empty for none and always empty on indeterminate rows. The first line is the
// version; `# name=value` lines before the column line are the header (the target's identity,
// written by LedgerStream, ledger_stream.h); records follow in arrival order; the end line is
// written when the run closed the file, so a file without it comes from a run that was killed or
// crashed (`complete` is false, every record before the cut is still read). Version 2 files (five
// columns, no attributes) and version 1 files (`# acknowledged=N`, no end line) are still read.
// Anything else is an error naming the file, the line and the field.
//
//   WriteLedgerFile(artifacts + "/ledger.tsv", ledger);
//   LedgerFile again = ReadLedgerFile(artifacts + "/ledger.tsv");
#ifndef AFTERSHOCK_FRAMEWORK_LEDGER_LEDGER_FILE_H_
#define AFTERSHOCK_FRAMEWORK_LEDGER_LEDGER_FILE_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/ledger/promise.h"

namespace aftershock::ledger {

inline constexpr std::string_view kLedgerFileVersionLine = "# aftershock-ledger v3";
inline constexpr std::string_view kLedgerFileVersion2Line = "# aftershock-ledger v2";
inline constexpr std::string_view kLedgerFileVersion1Line = "# aftershock-ledger v1";
inline constexpr std::string_view kLedgerFileColumns = "kind\tunix_ms\tkey\tvalue\tcode\tattributes";
inline constexpr std::string_view kLedgerFileColumnsV2 = "kind\tunix_ms\tkey\tvalue\tcode";  // versions 1 and 2

struct LedgerFile {
  std::uint64_t acknowledged = 0;  // promises acknowledged in the run (v1 files may hold a sample)
  std::vector<std::pair<std::string, std::string>> header;  // `# name=value` lines, in file order
  bool complete = true;  // false: no end line (the writing run was killed or crashed)
  std::vector<Promise> promises;
  std::vector<IndeterminatePromise> indeterminate;

  // The header value of `name`, or "" when absent.
  std::string HeaderValue(std::string_view name) const;

  friend bool operator==(const LedgerFile&, const LedgerFile&) = default;
};

// One record line, '\n' included (shared by the file writer and the stream).
// The attributes field of a record: `name=value;...` ("" for none).
std::string FormatLedgerAttributes(const PromiseAttributes& attributes);
std::string FormatLedgerRecord(const Promise& promise);
std::string FormatLedgerRecord(const IndeterminatePromise& promise);

// Thrown for unreadable or malformed files; what() is "<path>:<line>: <problem>".
class LedgerFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes atomically (a temporary file beside `path`, then rename), with an end line. Throws LedgerFileError.
void WriteLedgerFile(const std::string& path, const LedgerFile& file);
LedgerFile ReadLedgerFile(const std::string& path);

// The same format in memory; `source` names the text in errors.
std::string FormatLedgerFile(const LedgerFile& file);
LedgerFile ParseLedgerFile(std::string_view text, const std::string& source);

}  // namespace aftershock::ledger

#endif  // AFTERSHOCK_FRAMEWORK_LEDGER_LEDGER_FILE_H_
