#include "framework/ledger/ledger_file.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "framework/common/call_code.h"
#include "framework/ledger/internal/escape.h"

namespace aftershock::ledger {
namespace {

constexpr std::string_view kColumns = kLedgerFileColumns;
constexpr std::string_view kAcknowledgedMeta = "# acknowledged=";  // version 1
constexpr std::string_view kEndMeta = "# end acknowledged=";
constexpr std::string_view kPromiseRow = "promise";     // PromiseKind::kIssued (every v1 and older v2 row)
constexpr std::string_view kReadBackRow = "read-back";  // PromiseKind::kWritten

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

// The attributes field of line `line_no`; an error names the line, the field and the attribute.
PromiseAttributes ParseAttributes(std::string_view field, const std::string& source, std::size_t line_no) {
  PromiseAttributes attributes;
  if (field.empty()) return attributes;
  for (std::string_view item : internal::SplitAttributes(field)) {
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      Fail(source, line_no, "attributes: '" + std::string(item.substr(0, 80)) + "' is not name=value");
    }
    const std::string name(item.substr(0, eq));
    if (!ValidAttributeName(name)) {
      Fail(source, line_no, "attributes: name '" + name.substr(0, 80) + "' is not [a-z0-9._-]+");
    }
    if (attributes.Get(name)) Fail(source, line_no, "attributes: '" + name + "' is given twice");
    std::optional<std::string> value = internal::UnescapeAttributeValue(item.substr(eq + 1));
    if (!value) Fail(source, line_no, "attributes: bad escape in the value of '" + name + "'");
    attributes.Set(name, std::move(*value));
  }
  return attributes;
}

}  // namespace

std::string LedgerFile::HeaderValue(std::string_view name) const {
  for (const auto& [n, v] : header) {
    if (n == name) return v;
  }
  return "";
}

std::string FormatLedgerAttributes(const PromiseAttributes& attributes) {
  std::string out;
  for (const auto& [name, value] : attributes) {
    if (!out.empty()) out += ';';
    out += name + "=" + internal::EscapeAttributeValue(value);
  }
  return out;
}

std::string FormatLedgerRecord(const Promise& p) {
  using internal::EscapeField;
  const std::string_view row = p.kind == PromiseKind::kWritten ? kReadBackRow : kPromiseRow;
  return std::string(row) + '\t' + std::to_string(p.unix_ms) + '\t' + EscapeField(p.key) + '\t' + EscapeField(p.value) +
         "\t\t" + FormatLedgerAttributes(p.attributes) + '\n';
}

std::string FormatLedgerRecord(const IndeterminatePromise& p) {
  using internal::EscapeField;
  return "indeterminate\t" + std::to_string(p.unix_ms) + '\t' + EscapeField(p.key) + "\t\t" +
         EscapeField(CallCodeName(p.code)) + "\t\n";
}

std::string FormatLedgerFile(const LedgerFile& file) {
  std::string out;
  out += kLedgerFileVersionLine;
  out += '\n';
  for (const auto& [name, value] : file.header) out += "# " + name + "=" + internal::EscapeField(value) + "\n";
  out += kColumns;
  out += '\n';
  for (const Promise& p : file.promises) out += FormatLedgerRecord(p);
  for (const IndeterminatePromise& p : file.indeterminate) out += FormatLedgerRecord(p);
  if (file.complete) {
    out += std::string(kEndMeta) + std::to_string(file.promises.size()) +
           " indeterminate=" + std::to_string(file.indeterminate.size()) + "\n";
  }
  return out;
}

LedgerFile ParseLedgerFile(std::string_view text, const std::string& source) {
  LedgerFile file;
  file.complete = false;
  int version = 0;
  bool seen_columns = false;
  bool seen_end = false;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line_no == 1) {
      if (line == kLedgerFileVersionLine) {
        version = 3;
      } else if (line == kLedgerFileVersion2Line) {
        version = 2;
      } else if (line == kLedgerFileVersion1Line) {
        version = 1;
      } else {
        Fail(source, line_no, "expected '" + std::string(kLedgerFileVersionLine) + "', found '" +
                                  std::string(line.substr(0, 80)) + "'");
      }
      continue;
    }
    if (line.empty()) continue;
    if (seen_end) Fail(source, line_no, "text after the end line");
    if (line.front() == '#') {
      if (version == 1) {
        if (line.substr(0, kAcknowledgedMeta.size()) == kAcknowledgedMeta &&
            !ParseInt(line.substr(kAcknowledgedMeta.size()), file.acknowledged)) {
          Fail(source, line_no, "acknowledged= is not a non-negative integer");
        }
        continue;
      }
      if (line.substr(0, kEndMeta.size()) == kEndMeta) {
        const std::string_view rest = line.substr(kEndMeta.size());
        const std::size_t space = rest.find(' ');
        if (!ParseInt(rest.substr(0, space), file.acknowledged)) {
          Fail(source, line_no, "end acknowledged= is not a non-negative integer");
        }
        seen_end = true;
        continue;
      }
      if (!seen_columns) {
        const std::size_t eq = line.find('=');
        if (line.size() < 3 || line[1] != ' ' || eq == std::string_view::npos) {
          Fail(source, line_no, "expected a header line '# name=value'");
        }
        std::optional<std::string> value = internal::UnescapeField(line.substr(eq + 1));
        if (!value) Fail(source, line_no, "bad escape in header value");
        file.header.emplace_back(std::string(line.substr(2, eq - 2)), std::move(*value));
      }
      continue;
    }
    const std::size_t columns = version == 3 ? 6 : 5;
    if (!seen_columns) {
      if (line != (version == 3 ? kColumns : kLedgerFileColumnsV2)) {
        Fail(source, line_no,
             version == 3 ? "expected the column line 'kind<TAB>unix_ms<TAB>key<TAB>value<TAB>code<TAB>attributes'"
                          : "expected the column line 'kind<TAB>unix_ms<TAB>key<TAB>value<TAB>code'");
      }
      seen_columns = true;
      continue;
    }
    const std::vector<std::string_view> fields = SplitTabs(line);
    if (fields.size() != columns) {
      Fail(source, line_no,
           "expected " + std::to_string(columns) + " tab-separated fields, found " + std::to_string(fields.size()));
    }
    const std::string_view attributes_field = columns == 6 ? fields[5] : std::string_view();
    std::int64_t unix_ms = 0;
    if (!ParseInt(fields[1], unix_ms)) Fail(source, line_no, "unix_ms '" + std::string(fields[1]) + "' is not an integer");
    std::optional<std::string> key = internal::UnescapeField(fields[2]);
    if (!key) Fail(source, line_no, "bad escape in key");
    std::optional<std::string> value = internal::UnescapeField(fields[3]);
    if (!value) Fail(source, line_no, "bad escape in value");
    if (fields[0] == kPromiseRow || fields[0] == kReadBackRow) {
      if (!fields[4].empty()) Fail(source, line_no, "a " + std::string(fields[0]) + " row has no code");
      if (version == 1 && fields[0] == kReadBackRow) Fail(source, line_no, "read-back rows need version 2");
      const PromiseKind kind = fields[0] == kReadBackRow ? PromiseKind::kWritten : PromiseKind::kIssued;
      file.promises.push_back(
          Promise{std::move(*key), std::move(*value), unix_ms, kind, ParseAttributes(attributes_field, source, line_no)});
    } else if (fields[0] == "indeterminate") {
      if (!value->empty()) Fail(source, line_no, "an indeterminate row has no value");
      if (!attributes_field.empty()) Fail(source, line_no, "an indeterminate row has no attributes");
      const std::optional<CallCode> code = ParseCallCode(fields[4]);
      if (!code) Fail(source, line_no, "unknown code '" + std::string(fields[4]) + "'");
      file.indeterminate.push_back(IndeterminatePromise{std::move(*key), unix_ms, *code});
    } else {
      Fail(source, line_no, "unknown kind '" + std::string(fields[0]) + "' (expected promise, read-back or indeterminate)");
    }
  }
  if (line_no == 0) Fail(source, 1, "empty file, expected '" + std::string(kLedgerFileVersionLine) + "'");
  if (!seen_columns) Fail(source, line_no, "missing the column line");
  if (version == 1) {
    file.complete = true;  // version 1 files were written whole, at the end of a run
  } else {
    file.complete = seen_end;
    if (!seen_end) file.acknowledged = file.promises.size();
    if (seen_end && file.acknowledged != file.promises.size()) {
      Fail(source, line_no, "the end line says acknowledged=" + std::to_string(file.acknowledged) + " but the file has " +
                                std::to_string(file.promises.size()) + " promise rows");
    }
  }
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

LedgerFile ReadLedgerFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LedgerFileError(path + ":0: cannot open for reading");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return ParseLedgerFile(buffer.str(), path);
}

}  // namespace aftershock::ledger
