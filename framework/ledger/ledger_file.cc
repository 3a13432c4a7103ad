#include "framework/ledger/ledger_file.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "framework/common/call_code.h"
#include "framework/ledger/internal/escape.h"

namespace aftershock::ledger {
namespace {

constexpr std::string_view kColumns = "kind\tunix_ms\tkey\tvalue\tcode";
constexpr std::string_view kAcknowledgedMeta = "# acknowledged=";

[[noreturn]] void Fail(const std::string& source, std::size_t line, const std::string& problem) {
  throw LedgerFileError(source + ":" + std::to_string(line) + ": " + problem);
}

template <typename Int>
bool ParseInt(std::string_view text, Int& value) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return !text.empty() && ec == std::errc() && ptr == end;
}

std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    if (tab == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return fields;
    }
    fields.push_back(line.substr(start, tab - start));
    start = tab + 1;
  }
}

}  // namespace

std::string FormatLedgerFile(const LedgerFile& file) {
  using internal::EscapeField;
  std::string out;
  out += kLedgerFileVersionLine;
  out += '\n';
  out += kAcknowledgedMeta;
  out += std::to_string(file.acknowledged);
  out += '\n';
  out += kColumns;
  out += '\n';
  for (const Promise& p : file.promises) {
    out += "promise\t" + std::to_string(p.unix_ms) + '\t' + EscapeField(p.key) + '\t' + EscapeField(p.value) + "\t\n";
  }
  for (const IndeterminatePromise& p : file.indeterminate) {
    out += "indeterminate\t" + std::to_string(p.unix_ms) + '\t' + EscapeField(p.key) + "\t\t" +
           EscapeField(CallCodeName(p.code)) + '\n';
  }
  return out;
}

LedgerFile ParseLedgerFile(std::string_view text, const std::string& source) {
  LedgerFile file;
  bool seen_columns = false;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line_no == 1) {
      if (line != kLedgerFileVersionLine) {
        Fail(source, line_no, "expected '" + std::string(kLedgerFileVersionLine) + "', found '" +
                                  std::string(line.substr(0, 80)) + "'");
      }
      continue;
    }
    if (line.empty()) continue;
    if (line.front() == '#') {
      if (line.substr(0, kAcknowledgedMeta.size()) == kAcknowledgedMeta) {
        if (!ParseInt(line.substr(kAcknowledgedMeta.size()), file.acknowledged)) {
          Fail(source, line_no, "acknowledged= is not a non-negative integer");
        }
      }
      continue;
    }
    if (!seen_columns) {
      if (line != kColumns) Fail(source, line_no, "expected the column line 'kind<TAB>unix_ms<TAB>key<TAB>value<TAB>code'");
      seen_columns = true;
      continue;
    }
    const std::vector<std::string_view> fields = SplitTabs(line);
    if (fields.size() != 5) {
      Fail(source, line_no, "expected 5 tab-separated fields, found " + std::to_string(fields.size()));
    }
    std::int64_t unix_ms = 0;
    if (!ParseInt(fields[1], unix_ms)) Fail(source, line_no, "unix_ms '" + std::string(fields[1]) + "' is not an integer");
    std::optional<std::string> key = internal::UnescapeField(fields[2]);
    if (!key) Fail(source, line_no, "bad escape in key");
    std::optional<std::string> value = internal::UnescapeField(fields[3]);
    if (!value) Fail(source, line_no, "bad escape in value");
    if (fields[0] == "promise") {
      if (!fields[4].empty()) Fail(source, line_no, "a promise row has no code");
      file.promises.push_back(Promise{std::move(*key), std::move(*value), unix_ms});
    } else if (fields[0] == "indeterminate") {
      if (!value->empty()) Fail(source, line_no, "an indeterminate row has no value");
      const std::optional<CallCode> code = ParseCallCode(fields[4]);
      if (!code) Fail(source, line_no, "unknown code '" + std::string(fields[4]) + "'");
      file.indeterminate.push_back(IndeterminatePromise{std::move(*key), unix_ms, *code});
    } else {
      Fail(source, line_no, "unknown kind '" + std::string(fields[0]) + "' (expected promise or indeterminate)");
    }
  }
  if (line_no == 0) Fail(source, 1, "empty file, expected '" + std::string(kLedgerFileVersionLine) + "'");
  if (!seen_columns) Fail(source, line_no, "missing the column line");
  return file;
}

void WriteLedgerFile(const std::string& path, const LedgerFile& file) {
  const std::string text = FormatLedgerFile(file);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw LedgerFileError(path + ": cannot open '" + tmp + "' for writing");
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) throw LedgerFileError(path + ": write failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw LedgerFileError(path + ": cannot rename the temporary file into place");
  }
}

void WriteLedgerFile(const std::string& path, const PromiseLedger& ledger) {
  LedgerFile file;
  file.promises = ledger.Sample();
  file.indeterminate = ledger.Indeterminate();
  file.acknowledged = ledger.acknowledged();
  WriteLedgerFile(path, file);
}

LedgerFile ReadLedgerFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LedgerFileError(path + ":0: cannot open for reading");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return ParseLedgerFile(buffer.str(), path);
}

}  // namespace aftershock::ledger
