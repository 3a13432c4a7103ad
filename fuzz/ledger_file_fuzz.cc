// Fuzz target: the ledger file reader (framework/ledger/ledger_file.h). Any text either parses or
// throws LedgerFileError; what parses formats (as version 2) to a text that re-parses to the same
// file. A version 1 file is the exception the format documents: its `# acknowledged=N` may count a
// sample, and the version 2 text it is rewritten as counts the rows it holds.
#include <string>

#include "framework/ledger/ledger_file.h"
#include "fuzz/internal/fuzz_target.h"

namespace ledger = aftershock::ledger;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = aftershock::fuzz::AsText(data, size);
  ledger::LedgerFile parsed;
  try {
    parsed = ledger::ParseLedgerFile(text, "fuzz.tsv");
  } catch (const ledger::LedgerFileError&) {
    return 0;  // the documented answer to a malformed file
  }
  const std::string formatted = ledger::FormatLedgerFile(parsed);
  ledger::LedgerFile again;
  try {
    again = ledger::ParseLedgerFile(formatted, "formatted.tsv");
  } catch (const ledger::LedgerFileError& e) {
    aftershock::fuzz::Require(false, "the formatted text of a parsed ledger parses", formatted + "\n" + e.what());
  }
  ledger::LedgerFile expected = parsed;
  if (text.starts_with(ledger::kLedgerFileVersion1Line)) expected.acknowledged = parsed.promises.size();
  aftershock::fuzz::Require(again == expected, "ParseLedgerFile(FormatLedgerFile(x)) == x", formatted);
  aftershock::fuzz::Require(ledger::FormatLedgerFile(again) == formatted, "the formatted text is a fixed point",
                            formatted);
  return 0;
}
