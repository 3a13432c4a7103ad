// Fuzz target: the marker collector (tools/report/collect.h): ExtractBlocks on any text (plain log or
// XML, which it decodes first through XmlTextContent) and XmlTextContent itself. ExtractBlocks throws
// nothing; its problems are lines in Extraction::errors. Checked on the result: blocks come in BEGIN
// order, and a complete block, written out again between its own markers, is read back as one
// complete block with the same rows (the same CSV too, unless a row ends in a carriage return the
// reader drops from a line end).
#include <string>

#include "fuzz/internal/fuzz_target.h"
#include "tools/report/collect.h"

namespace rt = aftershock::report_tools;
using aftershock::fuzz::Require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = aftershock::fuzz::AsText(data, size);
  (void)rt::XmlTextContent(text);
  const rt::Extraction extraction = rt::ExtractBlocks(text, "fuzz.log");
  std::size_t previous_begin = 0;
  for (const rt::MarkedBlock& block : extraction.blocks) {
    Require(block.begin_line >= 1 && block.begin_line >= previous_begin, "blocks come in BEGIN order, lines from 1");
    previous_begin = block.begin_line;
    if (!block.complete) continue;
    const std::string again = "##aftershock BEGIN " + block.file + " set=" + block.set + " scenario=" +
                              block.scenario + "\n" + block.csv + "##aftershock END " + block.file +
                              " rows=" + std::to_string(block.rows) + "\n";
    const rt::Extraction reread = rt::ExtractBlocks(again, "again.log");
    Require(reread.blocks.size() == 1 && reread.errors.empty() && reread.blocks[0].complete &&
                reread.blocks[0].rows == block.rows,
            "a complete block between its own markers reads back complete with the same rows", again);
    if (block.csv.find('\r') == std::string::npos) {
      Require(reread.blocks[0].csv == block.csv, "a complete block reads back with the same CSV", again);
    }
  }
  return 0;
}
