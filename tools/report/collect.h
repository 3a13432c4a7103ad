// aftershock-collect: cuts every marked timeline (framework/report/markers.h)
//
//   ##aftershock BEGIN <file> set=<set> scenario=<scenario>
//   <csv header>
//   <csv rows>
//   ##aftershock END <file> rows=<N>
//
// out of any log (a ctest log, `ctest -V` output with its "12: " prefixes, a JUnit XML's escaped or
// CDATA system-out, a pod log with timestamps) into <out>/<set>/<scenario>/<file>. How it tells a
// block's lines from other processes' lines printed in between (docs/report.md, "Collect"):
//
//   - the text before "##aftershock BEGIN" on its line is the block's prefix (e.g. "12: "; blanks
//     alone are none); every line of the block carries it, and a line without it is not the block's;
//   - the first line after the prefix that starts with "unix_ms," is the header; its CSV column count
//     is the block's; a row must have exactly that many columns (RFC 4180 quoting, a quoted field may
//     span lines), an integer unix_ms and a numeric second, and a unix_ms not before the previous
//     row's (both timelines are in time order);
//   - any other line inside the block is foreign: skipped and counted.
//
// Blocks with different prefixes may be open at once (ctest -j -V). A BEGIN with the prefix of an
// open block, an END of another file, or the end of the input truncates that block; so does an END
// whose rows=N differs from the rows found. A truncated block is an error (stderr, exit 1), and is
// written only as <file>.partial, never under the complete name. A repeated block with other rows
// (e.g. --gtest_repeat) is written as <file>.2, <file>.3, ...; an identical one (the same run read
// from the log and from the JUnit XML) once.
//
//   aftershock-collect --out=build/collected [--set=pr] [--scenario=primary-kill] [--allow-truncated] FILE...
//
// Exit: 0 all blocks complete; 1 a truncated or malformed block (0 with --allow-truncated, the
// error lines still printed), or the selection found no complete block; 2 bad arguments or an
// unreadable input.
#ifndef AFTERSHOCK_TOOLS_REPORT_COLLECT_H_
#define AFTERSHOCK_TOOLS_REPORT_COLLECT_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace aftershock::report_tools {

struct MarkedBlock {
  std::string file;      // e.g. "load-timeline.csv"
  std::string set;
  std::string scenario;
  std::string csv;       // header and rows, each line ending in '\n', prefix removed
  std::size_t rows = 0;  // data rows found
  bool complete = false;       // an END of this file with rows= equal to `rows`
  std::string source;          // input name
  std::size_t begin_line = 0;  // 1-based line of the BEGIN marker
};

struct Extraction {
  std::vector<MarkedBlock> blocks;  // in the order their BEGIN appeared
  std::vector<std::string> errors;  // "<source>:<line>: ..." for each truncated or malformed block
  std::size_t foreign_lines = 0;    // lines inside a block that were not its rows
};

// True when `text` is an XML document (starts with "<?xml" or "<testsuite", after whitespace).
bool LooksLikeXml(std::string_view text);
// The character data of an XML document: tags and comments dropped, entities (&lt; &amp; &#10; ...)
// decoded, CDATA sections copied raw. Line breaks inside the text are kept.
std::string XmlTextContent(std::string_view xml);

// Every marked block of `text` (decoded first when it LooksLikeXml).
Extraction ExtractBlocks(std::string_view text, const std::string& source);

// The command line (without the program name); messages on `out`, errors on `err`. Returns the exit code.
int RunCollect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace aftershock::report_tools

#endif  // AFTERSHOCK_TOOLS_REPORT_COLLECT_H_
