#include "tools/report/collect.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>

namespace aftershock::report_tools {
namespace {

constexpr std::string_view kBegin = "##aftershock BEGIN ";
constexpr std::string_view kEnd = "##aftershock END ";
// A quoted CSV field may span lines (a chaos detail with a line break); this many at most.
constexpr std::size_t kMaxRowLines = 20;

std::vector<std::string> Tokens(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool IsInteger(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsNumber(std::string_view s) {
  const auto dot = s.find('.');
  if (dot == std::string_view::npos) return IsInteger(s);
  const std::string_view frac = s.substr(dot + 1);
  return IsInteger(s.substr(0, dot)) && !frac.empty() &&
         std::all_of(frac.begin(), frac.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool QuotesOpen(std::string_view s) { return std::count(s.begin(), s.end(), '"') % 2 == 1; }

// RFC 4180 fields, unquoted (doubled quotes kept as they are: only the first two fields are read).
std::vector<std::string> CsvFields(std::string_view row) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : row) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// A path segment we may create: not empty, not . or .., no separator.
bool SafeSegment(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.find_first_of("/\\") == std::string::npos &&
         s.find('\0') == std::string::npos;
}

struct OpenBlock {
  MarkedBlock block;
  std::string prefix;
  std::size_t columns = 0;  // 0 until the header is seen
  std::int64_t last_unix_ms = std::numeric_limits<std::int64_t>::min();
  std::string pending;  // a row whose quoted field is still open
  std::size_t pending_lines = 0;
  std::string problem;
};

struct Finished {
  MarkedBlock block;
  std::string problem;
};

class Extractor {
 public:
  explicit Extractor(std::string source) : source_(std::move(source)) {}

  void Line(std::string_view line, std::size_t number) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (const auto at = line.find(kBegin); at != std::string_view::npos) return Begin(line, at, number);
    if (const auto at = line.find(kEnd); at != std::string_view::npos) return End(line, at, number);
    OpenBlock* b = Owner(line);
    if (b != nullptr) Content(*b, line.substr(b->prefix.size()));
  }

  Extraction Finish(std::size_t last_line) {
    while (!open_.empty()) {
      Truncate(open_.front(), "no END marker before the end of the input (line " + std::to_string(last_line) + ")");
    }
    std::stable_sort(done_.begin(), done_.end(),
                     [](const Finished& a, const Finished& b) { return a.block.begin_line < b.block.begin_line; });
    for (Finished& f : done_) {
      if (!f.problem.empty()) result_.errors.push_back(f.problem);
      result_.blocks.push_back(std::move(f.block));
    }
    return std::move(result_);
  }

 private:
  std::string Where(std::size_t line) const { return source_ + ":" + std::to_string(line) + ": "; }
  static std::string Name(const MarkedBlock& b) { return b.set + "/" + b.scenario + "/" + b.file; }

  void Begin(std::string_view line, std::size_t at, std::size_t number) {
    // Blanks alone are no prefix (an XML file's indentation before <system-out>).
    std::string prefix(line.substr(0, at));
    if (prefix.find_first_not_of(" \t") == std::string::npos) prefix.clear();
    const auto t = Tokens(line.substr(at + kBegin.size()));
    if (t.size() != 3 || t[1].rfind("set=", 0) != 0 || t[2].rfind("scenario=", 0) != 0) {
      result_.errors.push_back(Where(number) + "malformed BEGIN marker (want '##aftershock BEGIN <file> set=<set> "
                               "scenario=<scenario>'): " + std::string(line.substr(at)));
      return;
    }
    if (OpenBlock* same = WithPrefix(prefix)) {
      Truncate(*same, "a new BEGIN at line " + std::to_string(number) + " before its END");
    }
    OpenBlock b;
    b.prefix = prefix;
    b.block.file = t[0];
    b.block.set = t[1].substr(4);
    b.block.scenario = t[2].substr(9);
    b.block.source = source_;
    b.block.begin_line = number;
    open_.push_back(std::move(b));
  }

  void End(std::string_view line, std::size_t at, std::size_t number) {
    std::string prefix(line.substr(0, at));
    if (prefix.find_first_not_of(" \t") == std::string::npos) prefix.clear();
    const auto t = Tokens(line.substr(at + kEnd.size()));
    const bool well_formed =
        t.size() == 2 && t[1].rfind("rows=", 0) == 0 && IsInteger(t[1].substr(5)) && t[1].size() <= 5 + 18;
    OpenBlock* b = WithPrefix(prefix);
    if (b == nullptr) {
      result_.errors.push_back(Where(number) + "END marker without its BEGIN (the start of the block is missing): " +
                               std::string(line.substr(at)));
      return;
    }
    if (!well_formed || t[0] != b->block.file) {
      Truncate(*b, (well_formed ? "the END of another file (" + t[0] + ")" : std::string("a malformed END marker")) +
                       " at line " + std::to_string(number));
      return;
    }
    if (!b->pending.empty()) {
      result_.foreign_lines += b->pending_lines;
      b->pending.clear();
    }
    const std::size_t expected = std::stoull(t[1].substr(5));
    if (expected != b->block.rows) {
      Truncate(*b, "END at line " + std::to_string(number) + " says rows=" + std::to_string(expected) + " but " +
                       std::to_string(b->block.rows) + " rows were found");
      return;
    }
    b->block.complete = true;
    Close(*b, "");
  }

  void Content(OpenBlock& b, std::string_view body) {
    std::string row(body);
    if (!b.pending.empty()) {
      row = b.pending + "\n" + row;
      b.pending.clear();
    }
    ++b.pending_lines;
    if (QuotesOpen(row)) {
      if (b.pending_lines >= kMaxRowLines) {
        result_.foreign_lines += b.pending_lines;
        b.pending_lines = 0;
      } else {
        b.pending = std::move(row);
      }
      return;
    }
    const std::size_t lines = b.pending_lines;
    b.pending_lines = 0;
    if (b.columns == 0) {
      if (row.rfind("unix_ms,", 0) != 0) {
        result_.foreign_lines += lines;
        return;
      }
      b.columns = CsvFields(row).size();
      b.block.csv += row + "\n";
      return;
    }
    const auto fields = CsvFields(row);
    if (fields.size() != b.columns || !IsInteger(fields[0]) || fields[0].size() > 18 || !IsNumber(fields[1])) {
      result_.foreign_lines += lines;
      return;
    }
    const std::int64_t unix_ms = std::stoll(fields[0]);
    if (unix_ms < b.last_unix_ms) {
      result_.foreign_lines += lines;
      return;
    }
    b.last_unix_ms = unix_ms;
    b.block.csv += row + "\n";
    ++b.block.rows;
  }

  OpenBlock* WithPrefix(const std::string& prefix) {
    for (OpenBlock& b : open_) {
      if (b.prefix == prefix) return &b;
    }
    return nullptr;
  }

  // The open block a line belongs to: the longest prefix the line starts with.
  OpenBlock* Owner(std::string_view line) {
    OpenBlock* best = nullptr;
    for (OpenBlock& b : open_) {
      if (line.substr(0, b.prefix.size()) == b.prefix && (best == nullptr || b.prefix.size() > best->prefix.size())) {
        best = &b;
      }
    }
    return best;
  }

  void Truncate(OpenBlock& b, const std::string& why) {
    Close(b, Where(b.block.begin_line) + Name(b.block) + ": truncated: " + why + "; " + std::to_string(b.block.rows) +
                 " rows kept as " + b.block.file + ".partial");
  }

  void Close(OpenBlock& b, std::string problem) {
    done_.push_back({std::move(b.block), std::move(problem)});
    const auto it = std::find_if(open_.begin(), open_.end(), [&](const OpenBlock& x) { return &x == &b; });
    open_.erase(it);
  }

  std::string source_;
  std::vector<OpenBlock> open_;
  std::vector<Finished> done_;
  Extraction result_;
};

std::optional<std::string> ReadInput(const std::string& name) {
  std::ostringstream s;
  if (name == "-") {
    s << std::cin.rdbuf();
    return s.str();
  }
  std::ifstream in(name, std::ios::binary);
  if (!in) return std::nullopt;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

bool LooksLikeXml(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  text.remove_prefix(first);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text.rfind("<?xml", 0) == 0 || text.rfind("<testsuite", 0) == 0;
}

std::string XmlTextContent(std::string_view xml) {
  std::string out;
  out.reserve(xml.size());
  std::size_t i = 0;
  while (i < xml.size()) {
    if (xml.compare(i, 9, "<![CDATA[") == 0) {
      const auto end = xml.find("]]>", i + 9);
      const auto stop = end == std::string_view::npos ? xml.size() : end;
      out.append(xml.substr(i + 9, stop - i - 9));
      i = end == std::string_view::npos ? xml.size() : end + 3;
    } else if (xml.compare(i, 4, "<!--") == 0) {
      const auto end = xml.find("-->", i + 4);
      i = end == std::string_view::npos ? xml.size() : end + 3;
    } else if (xml[i] == '<') {
      const auto end = xml.find('>', i + 1);
      i = end == std::string_view::npos ? xml.size() : end + 1;
    } else if (xml[i] == '&') {
      const auto semi = xml.find(';', i + 1);
      const std::string_view name = semi == std::string_view::npos || semi - i > 10 ? std::string_view()
                                                                                   : xml.substr(i + 1, semi - i - 1);
      static const std::map<std::string_view, char> kNamed = {
          {"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};
      std::optional<unsigned long> code;
      if (name.size() > 1 && name[0] == '#') {
        const bool hex = name[1] == 'x' || name[1] == 'X';
        try {
          code = std::stoul(std::string(name.substr(hex ? 2 : 1)), nullptr, hex ? 16 : 10);
        } catch (const std::exception&) {
          code.reset();
        }
      }
      if (const auto it = kNamed.find(name); !name.empty() && it != kNamed.end()) {
        out += it->second;
        i = semi + 1;
      } else if (code && *code < 0x80) {
        out += static_cast<char>(*code);
        i = semi + 1;
      } else if (code && *code < 0x800) {
        out += static_cast<char>(0xC0 | (*code >> 6));
        out += static_cast<char>(0x80 | (*code & 0x3F));
        i = semi + 1;
      } else if (code && *code < 0x10000) {
        out += static_cast<char>(0xE0 | (*code >> 12));
        out += static_cast<char>(0x80 | ((*code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (*code & 0x3F));
        i = semi + 1;
      } else {
        out += '&';  // not an entity we know: kept as it is
        ++i;
      }
    } else {
      out += xml[i++];
    }
  }
  return out;
}

Extraction ExtractBlocks(std::string_view text, const std::string& source) {
  std::string decoded;
  if (LooksLikeXml(text)) {
    decoded = XmlTextContent(text);
    text = decoded;
  }
  Extractor x(source);
  std::size_t number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    x.Line(text.substr(start, end - start), ++number);
    start = end + 1;
  }
  return x.Finish(number);
}

int RunCollect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string out_dir;
  std::optional<std::string> want_set, want_scenario;
  bool allow_truncated = false;
  std::vector<std::string> inputs;
  const std::string usage =
      "usage: aftershock-collect --out=DIR [--set=SET] [--scenario=NAME] [--allow-truncated] FILE... ('-': stdin)\n";
  for (const std::string& a : args) {
    if (a.rfind("--out=", 0) == 0) {
      out_dir = a.substr(6);
    } else if (a.rfind("--set=", 0) == 0) {
      want_set = a.substr(6);
    } else if (a.rfind("--scenario=", 0) == 0) {
      want_scenario = a.substr(11);
    } else if (a == "--allow-truncated") {
      allow_truncated = true;
    } else if (a == "--help" || a == "-h") {
      out << usage;
      return 0;
    } else if (a.rfind("--", 0) == 0) {
      err << "aftershock-collect: unknown flag '" << a << "'\n" << usage;
      return 2;
    } else {
      inputs.push_back(a);
    }
  }
  if (out_dir.empty() || inputs.empty()) {
    err << "aftershock-collect: " << (out_dir.empty() ? "--out=DIR is required" : "no input file given") << "\n" << usage;
    return 2;
  }

  bool failed = false;
  std::size_t complete = 0;
  std::map<std::string, std::vector<std::string>> written;  // "<set>/<scenario>/<file>" -> contents so far
  for (const std::string& input : inputs) {
    const std::optional<std::string> text = ReadInput(input);
    if (!text) {
      err << "aftershock-collect: cannot read " << input << "\n";
      return 2;
    }
    Extraction x = ExtractBlocks(*text, input);
    std::vector<const MarkedBlock*> selected;
    for (const MarkedBlock& b : x.blocks) {
      if ((want_set && b.set != *want_set) || (want_scenario && b.scenario != *want_scenario)) continue;
      selected.push_back(&b);
    }
    // Errors of blocks outside the selection do not count; those not tied to a block always do.
    for (const std::string& e : x.errors) {
      const bool of_unselected = std::any_of(x.blocks.begin(), x.blocks.end(), [&](const MarkedBlock& b) {
        return std::find(selected.begin(), selected.end(), &b) == selected.end() &&
               e.rfind(b.source + ":" + std::to_string(b.begin_line) + ": ", 0) == 0;
      });
      if (of_unselected) continue;
      err << "aftershock-collect: " << (allow_truncated ? "warning: " : "error: ") << e << "\n";
      failed = true;
    }
    for (const MarkedBlock* b : selected) {
      if (!SafeSegment(b->set) || !SafeSegment(b->scenario) || !SafeSegment(b->file)) {
        err << "aftershock-collect: error: " << b->source << ":" << b->begin_line << ": set '" << b->set
            << "', scenario '" << b->scenario << "' or file '" << b->file << "' is not a plain name; not written\n";
        failed = true;
        continue;
      }
      const std::filesystem::path dir = std::filesystem::path(out_dir) / b->set / b->scenario;
      std::string name = b->file;
      if (b->complete) {
        auto& seen = written[b->set + "/" + b->scenario + "/" + b->file];
        if (std::find(seen.begin(), seen.end(), b->csv) != seen.end()) continue;  // the same block again
        seen.push_back(b->csv);
        if (seen.size() > 1) name += "." + std::to_string(seen.size());
        ++complete;
      } else {
        name += ".partial";
      }
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      std::ofstream f(dir / name, std::ios::binary | std::ios::trunc);
      f << b->csv;
      f.close();
      if (ec || !f) {
        err << "aftershock-collect: cannot write " << (dir / name).string() << "\n";
        return 2;
      }
      out << "wrote " << (dir / name).string() << " (" << b->rows << " rows" << (b->complete ? "" : ", truncated")
          << ")\n";
    }
    if (x.foreign_lines > 0) {
      out << input << ": skipped " << x.foreign_lines << " line(s) inside blocks that were not their rows\n";
    }
  }
  if (complete == 0) {
    err << "aftershock-collect: error: no complete block";
    if (want_set) err << " of set=" << *want_set;
    if (want_scenario) err << " scenario=" << *want_scenario;
    err << " in " << inputs.size() << " input(s)\n";
    return 1;
  }
  return failed && !allow_truncated ? 1 : 0;
}

}  // namespace aftershock::report_tools
